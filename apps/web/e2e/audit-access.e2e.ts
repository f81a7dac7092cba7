/**
 * The audit page in a real browser against `next start`: it shows what the chat's user may see,
 * found by the chat cookie the page's own requests carry — the owner everyone's records, bob his
 * own — and nothing to a browser without a chat, or to another site's link to it (the cookie is
 * SameSite=Strict, so that navigation carries none, though the browser holds a chat). The page is
 * never cached and carries the app's security headers.
 */
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, freePort, launchBrowser, startApp } from './harness.js';

let app: App;
let browser: Browser;
let elsewhere: Server;
/** A page on another site (localhost is not 127.0.0.1's site) linking to the audit page. */
let elsewhereUrl: string;
beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  const port = await freePort();
  elsewhere = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><a id="audit" href="${app.url}/audit">their trail</a>`);
  });
  await new Promise<void>((resolve) => elsewhere.listen(port, '127.0.0.1', resolve));
  elsewhereUrl = `http://localhost:${port}/`;
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await new Promise((resolve) => elsewhere?.close(resolve));
});

const NO_CHAT = 'Open the chat first';

describe('the audit page', () => {
  it('without a chat shows no record, is never stored by a cache, and carries the security headers', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(`${app.url}/audit`);
    const headers = response?.headers() ?? {};
    expect(headers['cache-control']).toContain('no-store');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('same-origin');
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).toContain("object-src 'none'");
    await page.getByText(NO_CHAT).waitFor();
    expect(await page.locator('table').count()).toBe(0);
    await context.close();
  });

  it('shows the owner everyone’s records, bob his own, and another site’s link nothing', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(app.url);
    // Its tools listed: opsdesk has started, so its database (and the trail) exists.
    await page.locator('details[data-tool="deploy_service"]').waitFor({ timeout: 30_000 });
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByText('Everyone’s records: the chat acts as owner').waitFor();

    await page.goBack();
    const identity = page.getByRole('combobox', { name: /Acting as/ });
    await identity.waitFor();
    await identity.selectOption('bob');
    await expect.poll(() => identity.inputValue()).toBe('bob');
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByText('The records of bob’s own calls').waitFor();

    // The browser holds an open chat; a link from another site reaches the page without its cookie.
    const other = await context.newPage();
    await other.goto(elsewhereUrl);
    await other.click('#audit');
    await other.waitForURL(`${app.url}/audit`);
    await other.getByText(NO_CHAT).waitFor();
    expect(await other.getByText(/acts as/).count()).toBe(0);
    await context.close();
  });
});
