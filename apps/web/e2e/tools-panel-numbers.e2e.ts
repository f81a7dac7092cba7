/**
 * A number typed into the tools panel reaches the tool as typed, or the call is refused. The panel
 * read each number field with `Number()` and sent the double it got: `2.00000000000000001` typed as a
 * ratio was sent as 2, `123456789012345678` as …680 — a call with a value the person never typed, run
 * without a word. Now the panel sends the number as typed, and refuses one that would arrive as
 * another value as the chat refuses it in a `/tool {json}` command (`numberNotAsTyped`: "cannot be
 * sent exactly: it would arrive as 2"), marked on its field, calling nothing; a number that reads as
 * typed (`0.5`, `1e2`) is sent. Built app, a real stdio MCP server
 * (raw JSON-RPC lines) that reports the arguments it got, Debian's Chromium.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { rawServer } from '../test/raw-server.js';
import { appWithServers } from './harness.js';

const SERVER = rawServer({
  tools: [
    {
      name: 'scale',
      inputSchema: { type: 'object', properties: { replicas: { type: 'integer' }, ratio: { type: 'number' } } },
    },
  ],
  call: "(m, ask, reply) => reply({ content: [{ type: 'text', text: 'got ' + JSON.stringify(m.params.arguments) }] })",
});

const world = appWithServers([{ name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' }]);

/** Fills the panel's form of `scale` and calls it. */
async function call(page: Page, replicas: string, ratio: string): Promise<void> {
  const tool = page.locator('details[data-tool="scale"]');
  if ((await tool.getAttribute('open')) === null) await tool.locator('summary').click();
  await tool.getByLabel(/^replicas/).fill(replicas);
  await tool.getByLabel(/^ratio/).fill(ratio);
  await tool.getByRole('button', { name: 'Call scale' }).click();
}

describe('a number typed into the tools panel', () => {
  it('is sent as typed: one that would arrive as another is refused, nothing called', async () => {
    const ctx = await world.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(world.app.url);
    await page.locator('details[data-tool="scale"]').waitFor({ timeout: 30_000 });
    await call(page, '3', '2.00000000000000001');
    await page
      .locator('#tool-scale-ratio-why')
      .getByText('2.00000000000000001 cannot be sent exactly: it would arrive as 2. Nothing was sent.')
      .waitFor({ timeout: 30_000 });
    await expect(page.locator('.tool-call').count()).resolves.toBe(0);
    await call(page, '1e2', '0.5');
    await page.locator('.tool-call[data-state="output-available"]').waitFor({ timeout: 30_000 });
    await expect(page.locator('.tool-call .tool-result').textContent()).resolves.toContain(
      'got {"replicas":100,"ratio":0.5}',
    );
    await ctx.close();
  });
});
