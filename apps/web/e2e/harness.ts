/**
 * The browser tests' world: the built Next app started with `next start` on a free port (its own
 * opsdesk data directory), and Debian's Chromium driven by playwright-core.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from '../../../test/support/service.js';

export const ROOT = resolve(import.meta.dirname, '../../..');
const SCREENSHOTS = join(ROOT, 'apps/web/test-results/screenshots');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** A loopback port free a moment ago, below the range the kernel hands out by itself (`service.ts`). */
export { freePort };

export interface App {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** `next start` on the production build, with a fresh opsdesk data directory. */
export async function startApp(env: Record<string, string> = {}): Promise<App> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'elicitkit-e2e-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules/next/dist/bin/next'),
      'start',
      join(ROOT, 'apps/web'),
      '-p',
      String(port),
      '-H',
      '127.0.0.1',
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        ELICITKIT_DATA: dataDir,
        NEXT_TELEMETRY_DISABLED: '1',
        // Every page of the run comes from 127.0.0.1 and closed pages may not send their beacon.
        ELICITKIT_MAX_CHATS_PER_ADDRESS: '500',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: `next start` runs the server in a child that a signal to the CLI
      // alone leaves behind (with opsdesk under it), so stop() signals the whole group.
      detached: true,
    },
  );
  let log = '';
  child.stdout?.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (log += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${log}`);
    try {
      await fetch(`${url}/api/chat/info`); // any answer (a broken configuration's 500 too) means it listens
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stopGroup(child);
      throw new Error(`next start did not answer within 60 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    dataDir,
    async stop() {
      await stopGroup(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `run` against an app of its own (started with `env`), stopped afterwards whatever happens. */
export async function withApp<T>(env: Record<string, string>, run: (app: App) => Promise<T>): Promise<T> {
  const app = await startApp(env);
  try {
    return await run(app);
  } finally {
    await app.stop();
  }
}

/**
 * The app started for a test file with `servers` as its ELICITKIT_SERVERS, and a browser, both
 * from the file's `beforeAll` and stopped after its last test: read `app` and `browser` in tests.
 *
 * @example
 * const world = appWithServers([{ name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' }]);
 * it('…', async () => { const page = await (await world.browser.newContext()).newPage(); await page.goto(world.app.url); });
 */
export function appWithServers(servers: unknown[]): { readonly app: App; readonly browser: Browser } {
  let app: App | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp({ ELICITKIT_SERVERS: JSON.stringify(servers) }), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the app is started in beforeAll: read it inside a test');
    return value;
  };
  return {
    get app() {
      return started(app);
    },
    get browser() {
      return started(browser);
    },
  };
}

/** SIGTERM to the child's process group, then waits until every process in it is gone (SIGKILL after 10 s). */
export async function stopGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (alive()) process.kill(-pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (alive()) {
    if (Date.now() > deadline) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone in between
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/** Timings the suite prints at the end (a figure, never an assertion). */
export const timings: { name: string; ms: number }[] = [];
export function report(): void {
  if (timings.length === 0) return;
  const by = new Map<string, number[]>();
  for (const t of timings) by.set(t.name, [...(by.get(t.name) ?? []), t.ms]);
  const lines = [...by].map(([name, ms]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    return `  ${name.padEnd(38)} median ${median.toFixed(0).padStart(5)} ms  (n=${ms.length}, min ${sorted[0]?.toFixed(0)}, max ${sorted.at(-1)?.toFixed(0)})`;
  });
  process.stdout.write(`\nElicitation timings (browser):\n${lines.join('\n')}\n`);
}

/**
 * Types a line into the chat and sends it, once the composer can send: while the last turn's
 * stream is still ending it shows Stop, and Enter sends nothing.
 */
export async function sendLine(page: Page, text: string): Promise<void> {
  await page.locator('form:has(#composer-input) button[type="submit"]').waitFor({ timeout: 30_000 });
  await page.fill('#composer-input', text);
  await page.press('#composer-input', 'Enter');
}
