/**
 * Small things a person sees: nothing on the page 404s (the icon either), the "Acting as" select
 * follows dark mode, an audit date stays on one line, and a question written on several lines
 * keeps them in the chat. Screenshots land in apps/web/test-results/screenshots/.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, launchBrowser, ROOT, sendLine, shot, startApp, withApp } from './harness.js';

let app: App;
let browser: Browser;

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function openChat(page: Page, url = app.url, tool = 'deploy_service'): Promise<void> {
  await page.goto(url);
  await page.locator(`details[data-tool="${tool}"]`).waitFor({ timeout: 30_000 });
}

describe('the page and its icon', () => {
  it('loads without a single 4xx/5xx request, and /favicon.ico leads to the icon', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await ctx.newPage();
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await openChat(page);
    await page.waitForLoadState('networkidle');
    expect(failed).toEqual([]);
    // Browsers ask for /favicon.ico on their own (headless Chromium does not), so ask too.
    const favicon = await page.request.get(`${app.url}/favicon.ico`);
    expect(favicon.status()).toBe(200);
    expect(favicon.headers()['content-type']).toMatch(/^image\/svg\+xml/);
    expect(await favicon.text()).toContain('<svg');
    expect(await page.locator('link[rel="icon"]').first().getAttribute('href', { timeout: 5_000 })).toMatch(
      /^\/icon\.svg/,
    );
    await ctx.close();
  });
});

describe('dark mode', () => {
  it('the "Acting as" select is dark like the rest of the top bar', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'dark' });
    const page = await ctx.newPage();
    await openChat(page);
    const identity = page.getByRole('combobox', { name: /Acting as/ });
    await identity.waitFor();
    const look = await identity.evaluate((el) => {
      const s = getComputedStyle(el);
      return { background: s.backgroundColor, color: s.color };
    });
    expect(look).toEqual({ background: 'rgb(13, 17, 23)', color: 'rgb(230, 237, 243)' }); // --bg, --text (dark)
    await shot(page, 'dark-identity-select');
    await ctx.close();
  });
});

describe('the audit page', () => {
  it('keeps a date on one line in a narrow window', async () => {
    const ctx = await browser.newContext({ viewport: { width: 700, height: 900 } });
    const page = await ctx.newPage();
    await openChat(page);
    await sendLine(page, '/deploy_service service=order-service');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    await page.goto(`${app.url}/audit`);
    const when = page.locator('.audit-table tbody td:first-child').first();
    await when.waitFor();
    const { height, lineHeight, text } = await when.evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const s = getComputedStyle(el);
      return {
        height: range.getBoundingClientRect().height,
        lineHeight: Number.parseFloat(s.lineHeight),
        text: el.textContent ?? '',
      };
    });
    expect(text).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(height).toBeLessThan(lineHeight * 1.5);
    await shot(page, 'audit-narrow');
    await ctx.close();
  });
});

describe('the chat history', () => {
  it('shows a question written on several lines as several lines', async () => {
    const server = {
      name: 'fieldkit',
      command: [
        process.execPath,
        '--import',
        'tsx',
        '--conditions=@elicitkit/source',
        join(ROOT, 'apps/web/e2e/every-field-server.ts'),
      ],
      revision: '2025-11-25',
    };
    await withApp({ ELICITKIT_SERVERS: JSON.stringify([server]) }, async (own) => {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await ctx.newPage();
      await openChat(page, own.url, 'every_field');
      await sendLine(page, '/every_field {"message": "First line.\\nSecond line.\\nThird line."}');
      const dialog = page.getByRole('dialog').filter({ hasText: 'First line.' });
      await dialog.waitFor({ state: 'visible', timeout: 30_000 });
      await page.keyboard.press('Escape');
      const line = page.locator('.question-line').filter({ hasText: 'First line.' }).first();
      await line.waitFor();
      // The line is short enough for one row of the page: three rows are the message's three lines.
      const rows = await line.evaluate((el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.bottom))).size;
      });
      expect(await line.textContent()).toContain('First line.\nSecond line.\nThird line.');
      expect(rows).toBe(3);
      await shot(page, 'question-several-lines');
      await ctx.close();
    });
  });
});
