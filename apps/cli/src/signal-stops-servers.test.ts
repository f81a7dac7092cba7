/**
 * `elicitkit tools` and `elicitkit doctor` stopped by a signal — a CI job's timeout (SIGTERM, sent
 * to the CLI alone, as `timeout 60 elicitkit …` sends it), or SIGINT — stop every stdio server they
 * started (the SDK's close: stdin ended, then SIGTERM, then SIGKILL) before they exit 143 or 130,
 * as `call` does (call-signal.test.ts). Was: `tools` died of the signal at once and `doctor` exited
 * without closing its connections, leaving each server that does not end with its stdin running,
 * orphaned — one per profile for doctor. The built CLI in a child process, against raw-SDK stdio
 * servers that append their pid to a file when they start.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/elicitkit.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ek-signal-stops-'));
const started: number[] = [];

afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A server that writes its pid once started and keeps running when its stdin ends (a pending
 * timer, as a server that polls something has). `hang`: where it never answers — `initialize`
 * (connecting), `tools/list`, or the tool's call.
 */
const server = (pids: string, hang: 'initialize' | 'tools/list' | 'tools/call') => `
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n');
setInterval(() => {}, 60_000);
const hang = ${JSON.stringify(hang)};
if (hang !== 'initialize') {
  const never = () => new Promise(() => {});
  const server = new Server({ name: 'stays', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () =>
    hang === 'tools/list' ? never() : { tools: [{ name: 'slow', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } }] });
  server.setRequestHandler('tools/call', () => {
    appendFileSync(${JSON.stringify(`${pids}.calls`)}, process.pid + '\\n');
    return never();
  });
  await server.connect(new StdioServerTransport());
} else process.stdin.resume();
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function pidsIn(path: string): number[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map(Number);
}

/** Resolves once `path` holds at least `count` pids. */
function pidsAppear(path: string, count: number): Promise<number[]> {
  return new Promise((resolve) => {
    const look = () => {
      const pids = pidsIn(path);
      if (pids.length < count) return false;
      watcher.close();
      resolve(pids);
      return true;
    };
    const watcher = watch(dir, look);
    look();
  });
}

/** True as soon as the process is gone; false if it is still there after `within` ms (a bound on failure only). */
async function goneWithin(pid: number, within: number): Promise<boolean> {
  const until = Date.now() + within;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

function startCli(args: string[]): {
  cli: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>;
} {
  const cli = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ELICITKIT_CONNECT_TIMEOUT_MS: '600000' },
  });
  let out = '';
  let err = '';
  cli.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  cli.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>(
    (resolve) => cli.once('exit', (code, signal) => resolve({ code, signal, out, err })),
  );
  return { cli, exited };
}

const command = (pids: string, hang: 'initialize' | 'tools/list' | 'tools/call') => [
  '--',
  process.execPath,
  '--input-type=module',
  '-e',
  server(pids, hang),
];

describe('elicitkit tools stopped by a signal', () => {
  it.each([
    ['SIGTERM', 143, 'initialize'],
    ['SIGINT', 130, 'initialize'],
    ['SIGTERM', 143, 'tools/list'],
    // The terminal closed: was the default, dying at once (129), its server left running.
    ['SIGHUP', 129, 'tools/list'],
  ] as const)(
    '%s (exit %i), the server silent on %s: every server it started is stopped',
    async (signal, code, hang) => {
      const pids = join(dir, `tools-${signal}-${hang.replace('/', '-')}.pids`);
      // 2025-11-25: no version probe, one server.
      const { cli, exited } = startCli(['tools', '--revision', '2025-11-25', ...command(pids, hang)]);
      const [pid] = await pidsAppear(pids, 1);
      started.push(pid as number);
      cli.kill(signal);
      const end = await exited;
      expect(end.signal, 'the CLI died of the signal instead of stopping its server').toBeNull();
      expect(end.code).toBe(code);
      expect(end.err).toContain(`stopped by ${signal}`);
      expect(end.out).toBe('');
      expect(await goneWithin(pid as number, 10_000), `server ${pid} still runs, orphaned`).toBe(true);
    },
    60_000,
  );
});

describe('elicitkit doctor stopped by a signal', () => {
  it.each([
    ['SIGTERM', 143, 'initialize'],
    ['SIGINT', 130, 'tools/call'],
    ['SIGHUP', 129, 'tools/call'],
  ] as const)(
    '%s (exit %i), the server silent on %s: the server of every profile is stopped',
    async (signal, code, hang) => {
      const pids = join(dir, `doctor-${signal}.pids`);
      // 2025-11-25: three profiles, each its own server.
      const { cli, exited } = startCli(['doctor', '--yes', '--revision', '2025-11-25', ...command(pids, hang)]);
      started.push(...(await pidsAppear(pids, 3)));
      // A call under way under some profile (its server holds it for ever).
      if (hang === 'tools/call') await pidsAppear(`${pids}.calls`, 1);
      cli.kill(signal);
      const end = await exited;
      expect(end.signal, 'the CLI died of the signal instead of stopping its servers').toBeNull();
      expect(end.code).toBe(code);
      for (const pid of pidsIn(pids)) {
        started.push(pid);
        expect(await goneWithin(pid, 10_000), `server ${pid} still runs, orphaned`).toBe(true);
      }
    },
    60_000,
  );
});
