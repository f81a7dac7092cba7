/**
 * The pagehide beacon in a real browser: a tab that goes closes its chat on the server (its
 * question withdrawn), and the per-address cap shows on the page.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, launchBrowser, sendLine, startApp } from './harness.js';

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

  it('a tab that comes back from the back/forward cache says goodbye once: the other tab keeps the chat', async () => {
    const context = await browser.newContext();
    const [one, two] = [await context.newPage(), await context.newPage()];
    // Each page counted on the server first: its tools shown come after its chat was found (a
    // textbox shows before that, and a goodbye then could end the chat under the other tab).
    for (const page of [one, two]) {
      await page.goto(app.url);
      await page.locator('details[data-tool="deploy_service"]').waitFor({ timeout: 30_000 });
    }
    const cookie = `ek_chat=${(await context.cookies()).find((c) => c.name === 'ek_chat')?.value}`;
    let closes = 0;
    context.on('request', (r) => {
      if (r.url().endsWith('/api/chat/close')) closes++;
    });
    // What a browser does to a page it keeps in its back/forward cache, then restores: pagehide
    // (persisted), later pageshow (persisted). The page was left, so it reloads — and the reload
    // brings a pagehide of its own. (This app's pages are not kept in headless Chromium's cache —
    // no-store — so the events are sent as the browser would send them.)
    await one.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true })));
    await expect.poll(() => closes).toBe(1);
    await Promise.all([
      one.waitForEvent('load'),
      one.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }))),
    ]);
    await one.getByRole('textbox').first().waitFor();
    const how = await one.evaluate(
      () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).type,
    );
    expect(how, 'the restored page reloaded').toBe('reload');
    expect(closes, 'the reload said goodbye again').toBe(1);
    // Both tabs show the chat still: the reloaded tab found it by its cookie, the other never left.
    expect(await toolsWith(cookie)).toBe(200);
    await sendLine(two, '/deploy_service {"service":"order-service"}');
    await two.getByRole('dialog').waitFor();
    // The reloaded page is counted again: the chat ends once both tabs have gone.
    await two.close({ runBeforeUnload: true });
    await one.close({ runBeforeUnload: true });
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
