/**
 * Narrow screens, in Chromium: a phone (390×844) and a tablet (768×1024) emulated as mobile
 * devices, and a desktop window narrowed to 390 px. The page never scrolls sideways, the header
 * buttons and Send are on screen, and an open question's dialog fits the screen with its timer,
 * its text and a reachable Submit — also when the screen is too short for it (it scrolls inside).
 */
import type { Browser, Locator, Page } from 'playwright-core';
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

interface Size {
  name: string;
  width: number;
  height: number;
  /** Emulate a mobile device: a page wider than the screen then widens the layout viewport too. */
  mobile: boolean;
  dark?: boolean;
}

const SIZES: Size[] = [
  { name: 'phone-390', width: 390, height: 844, mobile: true },
  { name: 'phone-390-dark', width: 390, height: 844, mobile: true, dark: true },
  { name: 'tablet-768', width: 768, height: 1024, mobile: true },
  { name: 'window-390', width: 390, height: 844, mobile: false },
];

/**
 * The page is no wider than the screen. On a mobile device a too-wide page widens the layout
 * viewport (innerWidth, and every fixed element with it), so both are compared with the screen.
 */
async function expectNoSidewaysScroll(page: Page, size: Size, when: string): Promise<void> {
  const widths = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    scrollX: window.scrollX,
  }));
  expect(widths, when).toEqual({ scrollWidth: size.width, innerWidth: size.width, scrollX: 0 });
}

/** The element's box lies inside the screen (within `slack` px of rounding). */
async function expectOnScreen(target: Locator, size: Size, what: string): Promise<void> {
  const box = await target.boundingBox();
  expect(box, `${what} is rendered`).not.toBeNull();
  if (!box) return;
  const slack = 0.5;
  expect(
    {
      what,
      left: box.x >= -slack,
      right: box.x + box.width <= size.width + slack,
      top: box.y >= -slack,
      bottom: box.y + box.height <= size.height + slack,
    },
    `${what} at ${JSON.stringify(box)} on a ${size.width}×${size.height} screen`,
  ).toEqual({ what, left: true, right: true, top: true, bottom: true });
}

/** `inner`'s box lies inside `outer`'s (horizontally; and vertically when `vertical`). */
async function expectInside(inner: Locator, outer: Locator, what: string, vertical = true): Promise<void> {
  const [a, b] = await Promise.all([inner.boundingBox(), outer.boundingBox()]);
  expect(a && b, `${what} is rendered`).toBeTruthy();
  if (!a || !b) return;
  const slack = 0.5;
  const inside =
    a.x >= b.x - slack &&
    a.x + a.width <= b.x + b.width + slack &&
    (!vertical || (a.y >= b.y - slack && a.y + a.height <= b.y + b.height + slack));
  expect(inside, `${what} at ${JSON.stringify(a)} inside ${JSON.stringify(b)}`).toBe(true);
}

describe.each(SIZES)('a narrow screen: $name', (size) => {
  it('fits: no sideways scroll, the header and Send on screen, the question dialog inside with Submit reachable', async () => {
    const ctx = await browser.newContext({
      viewport: { width: size.width, height: size.height },
      isMobile: size.mobile,
      hasTouch: size.mobile,
      colorScheme: size.dark ? 'dark' : 'light',
    });
    const page = await ctx.newPage();
    await page.goto(app.url);
    await page.locator('details[data-tool="deploy_service"]').waitFor({ timeout: 30_000 });

    await expectNoSidewaysScroll(page, size, 'the page on load');
    const send = page.locator('form:has(#composer-input) button[type="submit"]');
    await expectOnScreen(send, size, 'Send');
    await expectOnScreen(page.getByRole('button', { name: 'New chat' }), size, 'New chat');
    await expectOnScreen(page.getByRole('link', { name: 'Audit trail' }), size, 'Audit trail');
    await shot(page, `${size.name}-home`);

    await sendLine(page, '/deploy_service {"service":"order-service","env":"prod"}');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ timeout: 30_000 });
    await expectNoSidewaysScroll(page, size, 'the page with the dialog open');
    await expectOnScreen(dialog, size, 'the dialog');
    // Nothing inside is cut off on the right: the timer, the question, no sideways scroll inside.
    await expectInside(dialog.getByRole('timer'), dialog, 'the timer');
    await expectInside(dialog.locator('.ek-message'), dialog, 'the question', false);
    await expect(dialog.evaluate((el) => el.scrollWidth - el.clientWidth)).resolves.toBe(0);
    await dialog.getByLabel(/I have reviewed the change/).check();
    await dialog.getByLabel(/Release ticket/).fill('REL-1001');
    await shot(page, `${size.name}-dialog`);

    // A screen too short for the form (a phone on its side, a keyboard up): the dialog still fits
    // and scrolls inside, so Submit can be reached.
    await page.setViewportSize({ width: size.width, height: 420 });
    const short = { ...size, height: 420 };
    await expectOnScreen(dialog, short, 'the dialog on a short screen');
    await expect(dialog.evaluate((el) => el.scrollHeight > el.clientHeight)).resolves.toBe(true);
    const submit = dialog.getByRole('button', { name: 'Submit' });
    await submit.scrollIntoViewIfNeeded();
    await expectOnScreen(submit, short, 'Submit, scrolled to');
    await expectInside(submit, dialog, 'Submit, scrolled to');
    await shot(page, `${size.name}-dialog-short`);
    await page.setViewportSize({ width: size.width, height: size.height });

    await submit.click();
    await dialog.waitFor({ state: 'detached', timeout: 30_000 });
    const done = page.locator('.tool-call[data-state="output-available"]').first();
    await done.waitFor({ timeout: 60_000 });
    await expect(done.getAttribute('data-status')).resolves.toBe('done');
    // The call's arguments and result (long unbroken JSON) wrap instead of widening the page.
    await expectNoSidewaysScroll(page, size, 'the page with a tool result');
    await expectOnScreen(send, size, 'Send after a result');
    await shot(page, `${size.name}-result`);
    await ctx.close();
  });
});
