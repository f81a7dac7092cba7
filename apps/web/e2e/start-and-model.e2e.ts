/**
 * `npm start` as a person runs it (port, no rebuild), and the model's errors explained on the
 * page: a dead endpoint, a wrong key, an unknown model — in the chat and by "Test connection".
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, launchBrowser, ROOT, sendLine, shot, stopGroup, withApp } from './harness.js';
import { startScriptedModel } from './scripted-model.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Runs `npm start` (the script behind it) and waits until it serves or exits. */
async function npmStart(args: string[], env: Record<string, string>): Promise<{ output: string; served: boolean }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'elicitkit-start-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/web/scripts/start.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ELICITKIT_DATA: dataDir, NEXT_TELEMETRY_DISABLED: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const port = Number(args[args.indexOf('--port') + 1] ?? env.PORT);
  const deadline = Date.now() + 90_000;
  let served = false;
  try {
    while (child.exitCode === null && Date.now() < deadline) {
      const reply = await fetch(`http://127.0.0.1:${port}/api/chat/info`).catch(() => undefined);
      if (reply) {
        served = reply.ok;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await stopGroup(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return { output, served };
}

describe('npm start', () => {
  it('serves on --port, and on PORT, without building again (npm run build:web built it)', async () => {
    const flag = await npmStart(['--port', String(await freePort())], {});
    expect(flag.served).toBe(true);
    expect(flag.output).toContain('the build is up to date');
    const env = await npmStart([], { PORT: String(await freePort()) });
    expect(env.served).toBe(true);
    expect(env.output).toContain('the build is up to date');
    expect(env.output).not.toContain('Creating an optimized production build');
  });

  it('refuses a bad port clearly', async () => {
    const bad = await npmStart(['--port', 'eighty'], {});
    expect(bad.served).toBe(false);
    expect(bad.output).toContain('--port must be a port number from 1 to 65535, not "eighty"');
  });
});

async function chatPage(url: string, locale = 'en-US'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale });
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('details[data-tool="deploy_service"]').waitFor({ timeout: 30_000 });
  return page;
}

describe('model errors on the page', () => {
  it('a dead endpoint: the chat and Test connection name OPENAI_BASE_URL', async () => {
    const dead = `http://127.0.0.1:${await freePort()}/v1`;
    await withApp({ OPENAI_BASE_URL: dead, ELICITKIT_MODEL: 'm' }, async (app) => {
      const page = await chatPage(app.url);
      await sendLine(page, 'deploy order-service');
      const error = page.locator('[data-model-error]');
      await error.waitFor({ timeout: 60_000 });
      await expect(error.textContent()).resolves.toMatch(/cannot be reached \(ECONNREFUSED\).*OPENAI_BASE_URL/);
      await page.getByRole('button', { name: 'Test connection' }).click();
      const check = page.locator('[data-check="failed"]');
      await check.waitFor();
      await expect(check.textContent()).resolves.toContain('OPENAI_BASE_URL');
      await shot(page, 'model-error-dead-endpoint');
      await page.context().close();
    });
  });

  it('a wrong key names OPENAI_API_KEY, an unknown model ELICITKIT_MODEL (in Chinese too); a good setup passes', async () => {
    const model = await startScriptedModel();
    try {
      await withApp(
        { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'wrong', ELICITKIT_MODEL: model.model },
        async (app) => {
          const page = await chatPage(app.url);
          await sendLine(page, 'deploy order-service');
          await page.locator('[data-model-error]').filter({ hasText: 'OPENAI_API_KEY' }).waitFor({ timeout: 60_000 });
          await expect(page.locator('[data-model-error]').textContent()).resolves.toContain('HTTP 401');
          await page.getByRole('button', { name: 'Test connection' }).click();
          await page.locator('[data-check="failed"]').filter({ hasText: 'OPENAI_API_KEY' }).waitFor();
          await shot(page, 'model-error-wrong-key');
          await page.context().close();
        },
      );
      await withApp(
        { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: model.apiKey, ELICITKIT_MODEL: 'gpt-nope' },
        async (app) => {
          const page = await chatPage(app.url, 'zh-CN');
          await sendLine(page, '部署 order-service');
          await page.locator('[data-model-error]').filter({ hasText: 'ELICITKIT_MODEL' }).waitFor({ timeout: 60_000 });
          await expect(page.locator('[data-model-error]').textContent()).resolves.toContain('不认识模型 "gpt-nope"');
          await page.getByRole('button', { name: '测试连接' }).click();
          await page.locator('[data-check="failed"]').filter({ hasText: 'ELICITKIT_MODEL' }).waitFor();
          await shot(page, 'model-error-unknown-model-zh');
          await page.context().close();
        },
      );
      await withApp(
        { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: model.apiKey, ELICITKIT_MODEL: model.model },
        async (app) => {
          const page = await chatPage(app.url);
          await page.getByRole('button', { name: 'Test connection' }).click();
          await page.locator('[data-check="ok"]').waitFor();
          await page.context().close();
        },
      );
    } finally {
      await model.close();
    }
  });
});
