/**
 * The pagehide beacon in a real browser: a tab that goes closes its chat on the server (its
 * question withdrawn), and the per-address cap shows on the page.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, launchBrowser, startApp } from './harness.js';

let app: App;
let browser: Browser;
beforeAll(async () => {
  [app, browser] = await Promise.all([startApp({ ELICITKIT_MAX_CHATS_PER_ADDRESS: '3' }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const toolsWith = (cookie: string) => fetch(`${app.url}/api/tools`, { headers: { cookie } }).then((r) => r.status);

describe('closing a tab', () => {
  it('closes its chat through the pagehide beacon', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(app.url);
    await page.getByRole('textbox').first().waitFor();
    await expect.poll(async () => (await context.cookies()).find((c) => c.name === 'ek_chat')?.value).toBeTruthy();
    const cookie = `ek_chat=${(await context.cookies()).find((c) => c.name === 'ek_chat')?.value}`;
    expect(await toolsWith(cookie)).toBe(200);
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => toolsWith(cookie), { timeout: 10_000 }).toBe(401);
    await context.close();
  });

  it('says on the page when this address has too many chats open', async () => {
    // Chats held open by plain requests (the harness's readiness probe made one) fill the cap of 3.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${app.url}/api/chat/info`)).status);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(3);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(app.url);
    // Said in the chat, and in the tools panel instead of "Loading tools…" (no tools will come).
    await page.getByRole('main').getByText('Too many chats are open from your address').waitFor();
    await page.getByRole('complementary', { name: 'Tools' }).getByText('Too many chats are open').waitFor();
    await context.close();
  });
});
