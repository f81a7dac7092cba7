/**
 * Another page may not frame the chat. A page on another port of the same host (any local dev
 * server, a preview of downloaded HTML; behind a proxy, a sibling subdomain) is the same site, so
 * the browser sends the SameSite=Strict chat cookie with a frame it loads: the framed page was the
 * person's own chat — its tools panel, its composer, its question dialogs — under a page that could
 * lay a decoy over it and have the person click Run and Submit (clickjacking). A cross-site frame
 * gets no cookie but still opened a fresh chat against the person's address on every load. Now every
 * response says `X-Frame-Options: DENY` and `Content-Security-Policy: frame-ancestors 'none'`, and
 * the browser shows nothing of the app in a frame. Built app, Debian's Chromium.
 */
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, launchBrowser, startApp } from './harness.js';

let app: App;
let browser: Browser;
let decoy: Server;
let decoyUrl: string;

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  // The framing page, on another port of the app's host: the same site, another origin.
  decoy = createServer((req, res) => {
    const target = `${app.url}${req.url === '/audit' ? '/audit' : '/'}`;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><title>decoy</title><iframe id="f" src="${target}" width="1000" height="700" onload="document.body.dataset.loaded='1'"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', resolve));
  decoyUrl = `http://127.0.0.1:${(decoy.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => decoy?.close(resolve));
  await browser?.close();
  await app?.stop();
});

describe('a page of another origin framing the app', () => {
  it('shows nothing of the chat, although the browser holds its cookie', async () => {
    const context = await browser.newContext();
    // The person's own chat, open in a tab: the cookie the frame would carry.
    const own = await context.newPage();
    await own.goto(app.url);
    await own.locator('details[data-tool="deploy_service"]').waitFor({ timeout: 30_000 });
    const page = await context.newPage();
    await page.goto(decoyUrl);
    await page.locator('body[data-loaded="1"]').waitFor({ timeout: 30_000 });
    // Loaded: the framed chat's page (its composer is in the served HTML) was there, and went on
    // to list the person's tools with the cookie.
    expect(await page.frameLocator('#f').locator('#composer-input').count()).toBe(0);
    await context.close();
  });

  it('says so on every response: the page, the audit page and the API', async () => {
    for (const path of ['/', '/audit', '/api/chat/info', '/icon.svg']) {
      const response = await fetch(`${app.url}${path}`);
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
    }
  });
});
