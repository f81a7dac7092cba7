/**
 * A question whose field name or choice holds half a character (a lone UTF-16 surrogate) cannot be
 * answered as sent: no answer can carry it (`@elicitkit/form` refuses half characters in an
 * answer, and UTF-8 cannot write one). The page showed it as an ordinary form: the person filled it
 * in, and every Submit came back 400 — stuck until it timed out. Now the dialog says up front, in
 * the page's language, that it cannot be answered as sent and why, offers only Decline and Cancel
 * (Esc), and the server is told which. Built app, a real stdio MCP server written on the wire (raw
 * JSON-RPC lines, so nothing between it and the chat makes its text whole), Debian's Chromium.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { rawServer } from '../test/raw-server.js';
import { appWithServers, sendLine, shot } from './harness.js';

const QUESTIONS = {
  // A field named with half a character: no answer can name it.
  ask_name: {
    mode: 'form',
    message: 'Which release?',
    requestedSchema: { type: 'object', properties: { 'ticket\ud800': { type: 'string' } }, required: ['ticket\ud800'] },
  },
  // A choice with half a character: it can never be chosen.
  ask_choice: {
    mode: 'form',
    message: 'Which environment?',
    requestedSchema: {
      type: 'object',
      properties: { env: { type: 'string', enum: ['dev', 'pr\udc00od'] } },
      required: ['env'],
    },
  },
};

const SERVER = rawServer({
  tools: Object.keys(QUESTIONS).map((name) => ({ name, inputSchema: { type: 'object', properties: {} } })),
  call: `(m, ask, reply) => ask(${JSON.stringify(QUESTIONS)}[m.params.name])
    .then((r) => reply({ content: [{ type: 'text', text: 'answered ' + JSON.stringify(r.result ?? r.error) }] }))`,
});

const world = appWithServers([{ name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' }]);

async function open(locale: string): Promise<Page> {
  const ctx = await world.browser.newContext({ viewport: { width: 1280, height: 900 }, locale });
  const page = await ctx.newPage();
  await page.goto(world.app.url);
  await page.locator('details[data-tool="ask_name"]').waitFor({ timeout: 30_000 });
  return page;
}

/** The `n`th result's text (0-based), once it came. */
async function result(page: Page, n: number): Promise<string> {
  const done = page.locator('.tool-call[data-state="output-available"]').nth(n);
  await done.waitFor({ timeout: 30_000 });
  return (await done.locator('.tool-result').textContent()) ?? '';
}

describe('a question no answer can carry is said up front, and may be declined or cancelled', () => {
  it('a field named with half a character, on a Chinese page: said in Chinese, declined, the server told', async () => {
    const page = await open('zh-CN');
    await sendLine(page, '/ask_name');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ timeout: 30_000 });
    await expect(dialog.getByRole('heading').textContent()).resolves.toBe('ops 请求你填写');
    await expect(dialog.textContent()).resolves.toContain('Which release?');
    await expect(dialog.getByRole('alert').textContent()).resolves.toBe(
      '这个问题无法按原样回答：字段“ticket\uFFFD”的名称含有半个字符，任何回答都无法携带它（孤立的 UTF-16 代理项，显示为 \uFFFD）。请拒绝或取消它：服务器会得知你的选择。',
    );
    // Nothing to fill in and nothing to submit: only Decline and Cancel.
    await expect(dialog.getByRole('textbox').count()).resolves.toBe(0);
    await expect(dialog.getByRole('button').allTextContents()).resolves.toEqual(['拒绝', '取消']);
    await shot(page, 'question-half-character-zh');
    await dialog.getByRole('button', { name: '拒绝' }).click();
    expect(await result(page, 0)).toContain('answered {"action":"decline"}');
    await dialog.waitFor({ state: 'detached' });
    await expect(page.locator('.question-line').first().textContent()).resolves.toContain('已拒绝');
    await page.context().close();
  });

  it('a choice with half a character, on an English page: said in English, Esc cancels it', async () => {
    const page = await open('en-US');
    await sendLine(page, '/ask_choice');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ timeout: 30_000 });
    await expect(dialog.getByRole('alert').textContent()).resolves.toBe(
      'This question cannot be answered as sent: a choice of the field “env” holds half of a character, which no answer can carry (a lone UTF-16 surrogate, shown as \uFFFD). Decline it or cancel it: the server is told which.',
    );
    await expect(dialog.getByRole('button').allTextContents()).resolves.toEqual(['Decline', 'Cancel']);
    // The dialog is modal and holds the focus: Esc is its cancel.
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
    await page.keyboard.press('Escape');
    expect(await result(page, 0)).toContain('answered {"action":"cancel"}');
    await expect(page.locator('.question-line').first().textContent()).resolves.toContain('cancelled');
    await page.context().close();
  });
});
