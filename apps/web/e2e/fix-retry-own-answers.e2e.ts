/**
 * "Fix and retry" fills the re-run's question with the answers given to that same question, never
 * with those given to another. The page kept the last answer per server and form, so two production
 * deploys (one form, two services) shared one: retrying the payment-service deploy opened its
 * production confirmation already ticked, with the ticket typed for order-service — a confirmation
 * the person never gave for this deploy. Now an answer is kept for the question as asked (its server,
 * its text and its form). Built app, bundled opsdesk, Debian's Chromium.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, launchBrowser, sendLine, startApp } from './harness.js';

let app: App;
let browser: Browser;
beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function resultOf(page: Page, n: number): Promise<string> {
  const done = page.locator('.tool-call[data-state="output-available"]').nth(n);
  await done.waitFor({ timeout: 60_000 });
  return (await done.getAttribute('data-status')) ?? '';
}

/** Answers the production confirmation of a deploy: ticked or not, with `ticket`. */
async function confirm(page: Page, tick: boolean, ticket: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  if (tick) await dialog.getByLabel(/I have reviewed the change/).check();
  await dialog.getByLabel(/Release ticket/).fill(ticket);
  await dialog.getByRole('button', { name: 'Submit' }).click();
  // An unticked confirmation is warned about once; the second Submit sends it as it is.
  if (!tick) await dialog.getByRole('button', { name: 'Submit' }).click();
  await dialog.waitFor({ state: 'detached' });
}

describe('fix and retry', () => {
  it("fills the re-run's question with its own answers, not another deploy's confirmation", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await ctx.newPage();
    await page.goto(app.url);
    await page.locator('details[data-tool="deploy_service"]').waitFor({ timeout: 30_000 });
    // payment-service: left unticked, with order-service's pending ticket: invalid.
    await sendLine(page, '/deploy_service {"service":"payment-service","env":"prod"}');
    await confirm(page, false, 'REL-1002');
    expect(await resultOf(page, 0)).toBe('invalid');
    // order-service: ticked, with payment-service's ticket: invalid too, so the first retry stays.
    await sendLine(page, '/deploy_service {"service":"order-service","env":"prod"}');
    await confirm(page, true, 'REL-2001');
    expect(await resultOf(page, 1)).toBe('invalid');
    await page.getByRole('button', { name: 'Fix and retry' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain('payment-service');
    await expect(dialog.getByLabel(/Release ticket/).inputValue()).resolves.toBe('REL-1002');
    await expect(dialog.getByLabel(/I have reviewed the change/).isChecked()).resolves.toBe(false);
    await ctx.close();
  });
});
