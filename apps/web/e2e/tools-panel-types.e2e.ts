/**
 * What is typed into the tools panel reaches the tool as the value typed, of the type the tool
 * declared, or nothing is sent and the field says why. The panel turned each field's text into a
 * value by `type` alone, without a word: `{"env":"prod"}` typed into an object argument arrived as
 * the string "{\"env\":\"prod\"}", a boolean field sent `text === 'true'` (`yes` arrived as false),
 * and a union (`["string","null"]`), an untyped argument or an `enum` of numbers arrived as strings.
 * Built app, a real stdio MCP server (raw JSON-RPC lines) that reports the arguments it got,
 * Debian's Chromium; "Fix and retry" sends the refused call's values again, as they were.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { rawServer } from '../test/raw-server.js';
import { appWithServers, shot } from './harness.js';

const properties = {
  settings: { type: 'object' },
  tags: { type: 'array', items: { type: 'string' } },
  dry_run: { type: 'boolean' },
  note: { type: ['string', 'null'] },
  extra: {},
  level: { enum: [1, 2, 'max'] },
  replicas: { type: 'integer' },
};
// `configure` reports what it got; `apply` refuses every call for its `note`, reporting it too.
const SERVER = rawServer({
  tools: [
    { name: 'configure', inputSchema: { type: 'object', properties } },
    { name: 'apply', inputSchema: { type: 'object', properties } },
  ],
  call: `(m, ask, reply) => {
    const text = 'got ' + JSON.stringify(m.params.arguments);
    if (m.params.name === 'configure') return reply({ content: [{ type: 'text', text }] });
    reply({
      content: [{ type: 'text', text }],
      isError: true,
      structuredContent: { status: 'invalid', issues: [{ field: 'note', message: 'note: not this one' }] },
    });
  }`,
});

const world = appWithServers([{ name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' }]);

async function open(locale = 'en-US'): Promise<Page> {
  const ctx = await world.browser.newContext({ viewport: { width: 1280, height: 900 }, locale });
  const page = await ctx.newPage();
  await page.goto(world.app.url);
  await page.locator('details[data-tool="configure"]').waitFor({ timeout: 30_000 });
  return page;
}

/** Opens `tool`'s form, fills the fields named (a select by its option's value), and calls it. */
async function call(page: Page, tool: string, fields: Record<string, string>, button: string): Promise<void> {
  const form = page.locator(`details[data-tool="${tool}"]`);
  if ((await form.getAttribute('open')) === null) await form.locator('summary').click();
  for (const [name, text] of Object.entries(fields)) {
    const field = form.locator(`#tool-${tool}-${name}`);
    if ((await field.evaluate((e) => e.tagName)) === 'SELECT') await field.selectOption(text);
    else await field.fill(text);
  }
  await form.getByRole('button', { name: button }).click();
}

/** The `n`th result's text (0-based), once it came. */
async function result(page: Page, n: number): Promise<string> {
  const done = page.locator('.tool-call[data-state="output-available"]').nth(n);
  await done.waitFor({ timeout: 30_000 });
  return (await done.locator('.tool-result').textContent()) ?? '';
}

describe('the tools panel sends each argument as the value typed, of its declared type', () => {
  it('an object, a list, a boolean, a union, any JSON, a number enum and an integer arrive as such', async () => {
    const page = await open();
    await call(
      page,
      'configure',
      {
        settings: '{"env":"prod","limits":{"cpu":1.5}}',
        tags: '["a","b"]',
        dry_run: 'false',
        note: 'null',
        extra: '[1,"two",{"three":3}]',
        level: '2',
        replicas: '3',
      },
      'Call configure',
    );
    expect(await result(page, 0)).toContain(
      'got {"settings":{"env":"prod","limits":{"cpu":1.5}},"tags":["a","b"],"dry_run":false,"note":null,"extra":[1,"two",{"three":3}],"level":2,"replicas":3}',
    );
    await page.context().close();
  });

  it('what does not read is marked on its field in the page language, and nothing is called', async () => {
    const page = await open('zh-CN');
    await call(page, 'configure', { settings: '{"a":1,"a":2}', note: 'hello', replicas: '2.5' }, '调用 configure');
    const form = page.locator('details[data-tool="configure"]');
    await expect(form.locator('#tool-configure-settings-why').textContent()).resolves.toBe(
      '$.a：出现了两次：JSON 只会保留最后一个值。未发送任何请求。',
    );
    await expect(form.locator('#tool-configure-note-why').textContent()).resolves.toMatch(/^不是有效的 JSON（/);
    await expect(form.locator('#tool-configure-replicas-why').textContent()).resolves.toBe(
      '应为整数。未发送任何请求。',
    );
    await expect(form.locator('#tool-configure-settings').getAttribute('aria-invalid')).resolves.toBe('true');
    await shot(page, 'tools-panel-marked-zh');
    // Fixed, it is sent.
    await call(page, 'configure', { settings: '{"a":2}', note: '"hello"', replicas: '2' }, '调用 configure');
    expect(await result(page, 0)).toContain('got {"settings":{"a":2},"note":"hello","replicas":2}');
    // The first attempt was never sent: this is the one call.
    await expect(page.locator('.tool-call').count()).resolves.toBe(1);
    await page.context().close();
  });

  it('"Fix and retry" fills the refused call back so that calling again sends the same values', async () => {
    const page = await open();
    const fields = {
      settings: '{"env":"prod"}',
      tags: '[]',
      dry_run: 'true',
      note: '"first"',
      extra: '""',
      level: '"max"',
      replicas: '1e1',
    };
    await call(page, 'apply', fields, 'Call apply');
    const first = await result(page, 0);
    expect(first).toContain(
      'got {"settings":{"env":"prod"},"tags":[],"dry_run":true,"note":"first","extra":"","level":"max","replicas":10}',
    );
    await page.getByRole('button', { name: 'Fix and retry' }).click();
    const form = page.locator('details[data-tool="apply"]');
    await expect(form.locator('#tool-apply-note-why').textContent()).resolves.toBe('note: not this one');
    await expect(form.locator('#tool-apply-settings').inputValue()).resolves.toBe('{"env":"prod"}');
    await form.getByRole('button', { name: 'Call apply' }).click();
    expect(await result(page, 1)).toBe(first);
    await page.context().close();
  });
});
