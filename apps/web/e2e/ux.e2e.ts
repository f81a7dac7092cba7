/**
 * The chat as people expect it, in Chromium: history across reloads and New chat, scrolling that
 * respects a person reading, English and Chinese, dates, confirmations checked before sending,
 * keyboard-correct radio groups, "fix and retry", and the demo identity picker.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, launchBrowser, sendLine, shot, startApp } from './harness.js';

let app: App;
let browser: Browser;
beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function context(locale = 'en-US'): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 1280, height: 860 }, locale });
}

async function openChat(ctx: BrowserContext): Promise<Page> {
  const page = await ctx.newPage();
  await page.goto(app.url);
  await page.locator('details[data-tool="deploy_service"]').waitFor({ timeout: 30_000 });
  return page;
}

/** The status of the n-th finished tool call (0-based), once it has one. */
async function resultOf(page: Page, n: number): Promise<string> {
  const done = page.locator('.tool-call[data-state="output-available"]').nth(n);
  await done.waitFor({ timeout: 60_000 });
  return (await done.getAttribute('data-status')) ?? '';
}

const atBottom = (page: Page) =>
  page.locator('main.chat').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight <= 48);

describe('history, New chat and scrolling', () => {
  it('keeps the chat across a reload; a question that was open comes back as no longer open; New chat starts empty', async () => {
    const ctx = await context();
    const page = await openChat(ctx);
    await sendLine(page, '/list_deployments');
    expect(await resultOf(page, 0)).toBe('done');
    await sendLine(page, '/deploy_service service=order-service');
    await page.getByRole('dialog').waitFor();
    await page.reload();
    await page.locator('details[data-tool="deploy_service"]').waitFor({ timeout: 30_000 });
    await page.locator('.tool-call[data-tool="list_deployments"][data-status="done"]').waitFor();
    await page.locator('.question-line[data-status="gone"]').waitFor();
    await expect(page.getByRole('dialog').count()).resolves.toBe(0);
    await shot(page, 'history-after-reload');
    await page.getByRole('button', { name: 'New chat' }).click();
    await expect(page.locator('.tool-call').count()).resolves.toBe(0);
    await page.reload();
    await page.locator('details[data-tool="deploy_service"]').waitFor({ timeout: 30_000 });
    await expect(page.locator('.tool-call').count()).resolves.toBe(0);
    await ctx.close();
  });

  it('sticks to the newest result only while the person is at the bottom, and offers Jump to latest', async () => {
    const ctx = await context();
    const page = await openChat(ctx);
    for (let i = 0; i < 4; i++) {
      await sendLine(page, '/list_deployments');
      expect(await resultOf(page, i)).toBe('done');
    }
    expect(await atBottom(page)).toBe(true);
    await page.locator('main.chat').evaluate((el) => el.scrollTo({ top: 0 }));
    await sendLine(page, '/list_deployments');
    expect(await resultOf(page, 4)).toBe('done');
    expect(await page.locator('main.chat').evaluate((el) => el.scrollTop)).toBe(0);
    const jump = page.getByRole('button', { name: 'Jump to latest' });
    await jump.waitFor();
    await shot(page, 'jump-to-latest');
    await jump.click();
    await expect.poll(() => atBottom(page)).toBe(true);
    await ctx.close();
  });
});

describe('English and Chinese', () => {
  it('follows the browser language, and the switch is kept across reloads', async () => {
    const ctx = await context('zh-CN');
    const page = await openChat(ctx);
    await page.getByRole('heading', { name: '工具' }).waitFor();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('zh-CN');
    await sendLine(page, '/deploy_service service=order-service');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    // opsdesk (English by default) asks this chat in its language: the question and the field are Chinese.
    await dialog.getByText('部署到哪个环境').waitFor();
    await dialog.getByText('目标环境').first().waitFor();
    await dialog.getByRole('button', { name: '取消' }).click();
    await page.locator('.question-line[data-status="answered"]').filter({ hasText: '已取消' }).waitFor();
    await page.locator('.tool-call .status').filter({ hasText: '已取消' }).waitFor();
    await shot(page, 'chat-zh');
    await page.getByRole('combobox', { name: '语言' }).selectOption('en');
    await page.getByRole('heading', { name: 'Tools' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Tools' }).waitFor();
    await page.locator('.tool-call .status').filter({ hasText: 'cancelled' }).waitFor();
    await shot(page, 'chat-switched-to-en');
    await page.goto(`${app.url}/audit`);
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    await ctx.close();
  });
});

describe('forms', () => {
  it('dates are typed as YYYY-MM-DD, the format the label states, with a calendar button', async () => {
    for (const locale of ['en-US', 'zh-CN']) {
      const ctx = await context(locale);
      const page = await openChat(ctx);
      await sendLine(page, '/weekly_report project=order-service');
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      const from = dialog.getByRole('textbox', { name: /YYYY-MM-DD/ }).first();
      await expect(from.getAttribute('placeholder')).resolves.toBe('YYYY-MM-DD');
      await dialog
        .getByRole('button', { name: locale === 'en-US' ? 'Pick a date' : '选择日期' })
        .first()
        .waitFor();
      await from.fill('2026-11-02');
      await dialog
        .getByRole('textbox', { name: /YYYY-MM-DD/ })
        .nth(1)
        .fill('2026-11-08');
      await shot(page, `form-dates-${locale}`);
      await dialog.getByRole('button', { name: locale === 'en-US' ? 'Submit' : '提交' }).click();
      expect(await resultOf(page, 0)).toBe('done');
      await ctx.close();
    }
  });

  it('a production confirmation is marked, and an unticked one is caught before sending', async () => {
    const ctx = await context();
    const page = await openChat(ctx);
    await sendLine(page, '/deploy_service {"service":"order-service","env":"prod"}');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByText('Tick to confirm: without it the request is refused.').waitFor();
    await dialog.getByLabel(/Release ticket/).fill('REL-1001');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await dialog.locator('[data-confirmation-warning]').waitFor();
    await shot(page, 'confirmation-warning');
    // Not sent: the question is still open, nothing was asked again.
    await expect(page.locator('.question-line[data-status="open"]').count()).resolves.toBe(1);
    await dialog.getByLabel(/I have reviewed the change/).check();
    await dialog.getByRole('button', { name: 'Submit' }).click();
    expect(await resultOf(page, 0)).toBe('done');
    await ctx.close();
  });

  it('radio group: arrow keys move and choose inside it, Tab leaves it', async () => {
    const ctx = await context();
    const page = await openChat(ctx);
    await sendLine(page, '/deploy_service service=order-service');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const radios = dialog.getByRole('radio');
    await radios.first().focus();
    await page.keyboard.press('ArrowDown');
    await expect(radios.nth(1).isChecked()).resolves.toBe(true);
    await expect(radios.nth(1).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).resolves.not.toBe(
      'radio',
    );
    // Back into the group lands on the chosen radio, not the first.
    await page.keyboard.press('Shift+Tab');
    await expect(radios.nth(1).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await ctx.close();
  });

  it('fix and retry: after an invalid answer the same call runs again with the previous answers filled in', async () => {
    const ctx = await context();
    const page = await openChat(ctx);
    await sendLine(page, '/deploy_service {"service":"order-service","env":"prod"}');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByLabel(/I have reviewed the change/).check();
    await dialog.getByLabel(/Release ticket/).fill('REL-1002');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    expect(await resultOf(page, 0)).toBe('invalid');
    await page.getByRole('button', { name: 'Fix and retry' }).click();
    await dialog.waitFor();
    await expect(dialog.getByLabel(/Release ticket/).inputValue()).resolves.toBe('REL-1002');
    await expect(dialog.getByLabel(/I have reviewed the change/).isChecked()).resolves.toBe(true);
    await shot(page, 'fix-and-retry');
    await dialog.getByLabel(/Release ticket/).fill('REL-1001');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    expect(await resultOf(page, 1)).toBe('done');
    await ctx.close();
  });
});

describe('fix and retry on refused arguments', () => {
  it('opens the tool’s form with the argument marked; once fixed and done, the old button is inactive', async () => {
    const ctx = await context();
    const page = await openChat(ctx);
    await sendLine(page, '/deploy_service');
    expect(await resultOf(page, 0)).toBe('invalid');
    await expect(page.locator('.tool-call').nth(0).textContent()).resolves.toContain(
      'service: required, and not given',
    );
    await page.getByRole('button', { name: 'Fix and retry' }).click();
    const form = page.getByRole('form', { name: 'Call deploy_service' });
    const service = form.getByLabel(/^service/);
    // The form opens and marks the field on the next render: waited for, not read at once.
    await expect.poll(() => service.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => service.evaluate((el) => el === document.activeElement)).toBe(true);
    await form.getByText('service: required, and not given').waitFor();
    await shot(page, 'fix-arguments');
    await service.fill('search-service');
    await form.getByRole('button', { name: 'Call deploy_service' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByLabel('Development (dev)').check();
    await dialog.getByRole('button', { name: 'Submit' }).click();
    expect(await resultOf(page, 1)).toBe('done');
    const old = page.locator('.retry').nth(0);
    await expect.poll(() => old.getByRole('button', { name: 'Fix and retry' }).isDisabled()).toBe(true);
    await old.getByText('Done since, by a later call.').waitFor();
    await ctx.close();
  });
});

describe('the demo identity picker', () => {
  it('bob sees only search-service; the local owner sees everything', async () => {
    const ctx = await context();
    const page = await openChat(ctx);
    await page.getByRole('combobox', { name: /Acting as/ }).selectOption('bob');
    await page.getByText('From now on opsdesk acts as bob').waitFor();
    await sendLine(page, '/list_deployments');
    expect(await resultOf(page, 0)).toBe('done');
    const asBob = (await page.locator('.tool-call').nth(0).textContent()) ?? '';
    expect(asBob).toContain('search-service');
    expect(asBob).not.toContain('order-service');
    await sendLine(page, '/list_deployments {"service":"order-service"}');
    expect(await resultOf(page, 1)).toBe('rejected');
    await shot(page, 'identity-bob');
    await page.getByRole('combobox', { name: /Acting as/ }).selectOption('');
    await page.getByText('From now on opsdesk acts as local owner').waitFor();
    // A new identity is a new chat: bob's calls are no longer on the page (nor sent to a model).
    expect(await page.locator('.tool-call').count()).toBe(0);
    await sendLine(page, '/list_deployments {"service":"order-service"}');
    expect(await resultOf(page, 0)).toBe('done');
    await ctx.close();
  });
});
