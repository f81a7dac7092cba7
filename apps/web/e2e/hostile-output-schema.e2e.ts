/**
 * A configured server whose tool declares an output schema that costs a checker minutes (24
 * levels of `anyOf` over `$ref`s; `uniqueItems` over 30,000 objects) cannot stall the web app:
 * its chats check results in a process of their own, bounded, and the call says it was not
 * checked. Was: the app checked on its own thread (`isolated: false`), because in Next.js's build
 * the thread never started — the build copied the worker file alone, without the chunk it
 * imported — and one such result held every chat of the process. Built app under `next start`,
 * the CLI's hostile-schema test server over stdio, Debian's Chromium.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appWithServers, ROOT, sendLine } from './harness.js';

const world = appWithServers([
  {
    name: 'hostile',
    command: [process.execPath, join(ROOT, 'apps/cli/test/hostile-schema-server.mjs')],
    revision: '2025-11-25',
  },
]);

/** The `n`th call's text (0-based), once it ended either way. */
async function ended(page: Page, n: number): Promise<string> {
  const call = page.locator('.tool-call[data-state="output-available"], .tool-call[data-state="output-error"]').nth(n);
  await call.waitFor({ timeout: 30_000 });
  return (await call.textContent()) ?? '';
}

describe("a server's output schema that would stall a checker", () => {
  it('each hostile result is said to be not checked, and the chat goes on: the fine tool answers', async () => {
    const ctx = await world.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(world.app.url);
    await page.locator('details[data-tool="nested"]').waitFor({ timeout: 30_000 });
    await sendLine(page, '/nested');
    expect(await ended(page, 0)).toContain('not checked');
    await sendLine(page, '/unique');
    expect(await ended(page, 1)).toContain('not checked');
    await sendLine(page, '/fine');
    const fine = await ended(page, 2);
    expect(fine).toContain('see structuredContent');
    expect(fine).not.toContain('not checked');
    await ctx.close();
  });
});
