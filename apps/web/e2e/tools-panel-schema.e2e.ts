/**
 * The tools panel checks a call against the tool's whole declared input schema before sending it:
 * the items of a list, an object's own properties, a required choice left empty, bounds and
 * patterns. It read each field's type alone, so a list item or a property the schema refuses, or
 * an empty required select (which had no `required`), went to the server, which refused it. Now
 * each is marked on its field in the page's language and nothing reaches the server until all
 * fit. Built app (the check's chunk loaded by the browser as a user's is), a real stdio MCP server
 * (raw JSON-RPC lines) that numbers the calls it gets, Debian's Chromium.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { rawServer } from '../test/raw-server.js';
import { appWithServers, shot } from './harness.js';

const SERVER = rawServer({
  tools: [
    {
      name: 'deploy',
      inputSchema: {
        type: 'object',
        properties: {
          env: { type: 'string', enum: ['dev', 'prod'] },
          tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' } },
          limits: {
            type: 'object',
            properties: { cpu: { type: 'number', maximum: 8 } },
            required: ['cpu'],
          },
        },
        required: ['env'],
      },
    },
  ],
  call: `(() => { let calls = 0; return (m, ask, reply) =>
    reply({ content: [{ type: 'text', text: 'call #' + ++calls + ' got ' + JSON.stringify(m.params.arguments) }] }); })()`,
});

const world = appWithServers([{ name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' }]);

async function open(locale: string): Promise<Page> {
  const ctx = await world.browser.newContext({ viewport: { width: 1280, height: 900 }, locale });
  const page = await ctx.newPage();
  await page.goto(world.app.url);
  await page.locator('details[data-tool="deploy"]').waitFor({ timeout: 30_000 });
  return page;
}

describe('the tools panel checks the whole schema before sending', () => {
  it('on a Chinese page: each field marked in Chinese, nothing sent until all fit', async () => {
    const page = await open('zh-CN');
    const form = page.locator('details[data-tool="deploy"]');
    await form.locator('summary').click();
    await expect(form.locator('#tool-deploy-env').getAttribute('required')).resolves.not.toBeNull();
    await form.locator('#tool-deploy-tags').fill('["ok","NO"]');
    await form.locator('#tool-deploy-limits').fill('{"cpu":64}');
    await form.getByRole('button', { name: '调用 deploy' }).click();
    await expect
      .poll(() => form.locator('#tool-deploy-env-why').textContent())
      .toBe('必填：请选择一项。未发送任何请求。');
    await expect(form.locator('#tool-deploy-tags-why').textContent()).resolves.toBe(
      '$[1]：与模式 ^[a-z]+$ 不匹配。未发送任何请求。',
    );
    await expect(form.locator('#tool-deploy-limits-why').textContent()).resolves.toBe(
      '$.cpu：应至多为 8。未发送任何请求。',
    );
    // The browser's own bubble (in its language) never stood in: the panel said it.
    await expect(form.locator('#tool-deploy-env').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('tool-deploy-env');
    await shot(page, 'tools-panel-schema-zh');
    await expect(page.locator('.tool-call').count()).resolves.toBe(0);
    // Fixed: the first call the server gets is the one that fits.
    await form.locator('#tool-deploy-env').selectOption('"prod"');
    await form.locator('#tool-deploy-tags').fill('["ok","fine"]');
    await form.locator('#tool-deploy-limits').fill('{"cpu":2}');
    await form.getByRole('button', { name: '调用 deploy' }).click();
    const done = page.locator('.tool-call[data-state="output-available"]').first();
    await done.waitFor({ timeout: 30_000 });
    await expect(done.locator('.tool-result').textContent()).resolves.toContain(
      'call #1 got {"env":"prod","tags":["ok","fine"],"limits":{"cpu":2}}',
    );
    await expect(form.locator('.why').count()).resolves.toBe(0);
    await page.context().close();
  });
});
