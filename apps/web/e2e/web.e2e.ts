/**
 * The whole product in a real browser, no language model: the tools panel and /tool commands,
 * opsdesk asking through the chat, every answer kind, URL mode, expiry, the audit page — then one
 * chat turn driven by a model (a scripted OpenAI-compatible endpoint the test runs, see
 * scripted-model.ts). Screenshots land in apps/web/test-results/.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, launchBrowser, ROOT, report, sendLine, shot, startApp, timings, withApp } from './harness.js';
import { startScriptedModel } from './scripted-model.js';

const EVERY_FIELD_SERVER = join(ROOT, 'apps/web/e2e/every-field-server.ts');

let app: App;
let browser: Browser;

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  report();
});

/** Counts in opsdesk.db, or in shop.db for the demo shop's tables (they live in their own file). */
const count = (dataDir: string, sql: string): number => {
  const shop = /\b(customers|products|orders|order_items)\b/.test(sql);
  const db = new BetterSqlite3(join(dataDir, shop ? 'shop.db' : 'opsdesk.db'), { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
};

async function openChat(context: BrowserContext, url = app.url, tool = 'deploy_service'): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await page.locator(`details[data-tool="${tool}"]`).waitFor({ timeout: 30_000 });
  return page;
}

/**
 * Waits for the dialog of the question whose message contains `text`, and records how long after
 * the server published it it became visible.
 */
async function question(page: Page, text: string, name = 'question visible after the tool asked') {
  const dialog = page.getByRole('dialog').filter({ hasText: text });
  await dialog.waitFor({ state: 'visible', timeout: 30_000 });
  const seen = Date.now();
  const line = page.locator('.question-line[data-status="open"]').filter({ hasText: text }).last();
  const published = Number(await line.getAttribute('data-published-at', { timeout: 5_000 }).catch(() => '0'));
  if (published > 0) timings.push({ name, ms: seen - published });
  return dialog;
}

/**
 * The last tool call's final status, once it has one. The last call, not the last finished one:
 * with an earlier result on the page, that would answer before this call has finished.
 */
async function toolStatus(page: Page): Promise<string> {
  const done = page.locator('.tool-call').last().and(page.locator('[data-state="output-available"]'));
  await done.waitFor({ timeout: 60_000 });
  return (await done.getAttribute('data-status')) ?? '';
}

async function submit(page: Page, dialog: ReturnType<Page['getByRole']>, label = 'Submit'): Promise<void> {
  const started = Date.now();
  const before = await page.locator('.tool-call[data-state="output-available"]').count();
  await dialog.getByRole('button', { name: label }).click();
  await dialog.waitFor({ state: 'detached', timeout: 30_000 });
  // Time to the tool's result, when this answer was the last question of the call.
  void page
    .locator('.tool-call[data-state="output-available"]')
    .nth(before)
    .waitFor({ timeout: 60_000 })
    .then(() => timings.push({ name: 'tool result after Submit', ms: Date.now() - started }))
    .catch(() => {});
}

describe('the chat without a model', () => {
  it('says plainly that no model is configured', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await openChat(context);
    await expect(page.getByRole('status').textContent()).resolves.toContain('No model configured');
    await shot(page, 'home-no-model');
    await sendLine(page, 'deploy please');
    await page.getByText('No language model is configured').waitFor();
    await context.close();
  });

  it('refuses requests for a host name it does not serve (DNS rebinding)', async () => {
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(`${app.url}/api/chat/info`, { headers: { host } }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on('error', reject);
        request.end();
      });
    expect(await status('attacker.example')).toBe(403);
    expect(await status(new URL(app.url).host)).toBe(200);
  });

  it('deploys through the tools panel: environment, then the production confirmation with an approved ticket', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await openChat(context);
    const before = count(app.dataDir, 'SELECT COUNT(*) FROM deployments');
    await page.locator('details[data-tool="deploy_service"] summary').click();
    await page.fill('#tool-deploy_service-service', 'order-service');
    await page.getByRole('button', { name: 'Call deploy_service' }).click();

    const env = await question(page, 'Which environment should order-service v2.3.1 be deployed to?');
    await expect(env.textContent()).resolves.toContain('Which environment should order-service v2.3.1 be deployed to?');
    await shot(page, 'form-select');
    await env.getByLabel('Production (prod)').check();
    await submit(page, env);

    const prod = await question(page, 'Deploy order-service to PRODUCTION: v2.3.0 → v2.3.1?');
    await expect(prod.textContent()).resolves.toContain('Deploy order-service to PRODUCTION: v2.3.0 → v2.3.1?');
    await prod.getByLabel(/I have reviewed the change/).check();
    await prod.getByLabel(/Release ticket/).fill('REL-1001');
    await shot(page, 'form-boolean-and-text');
    await submit(page, prod);

    expect(await toolStatus(page)).toBe('done');
    await page.getByText('Deployed order-service v2.3.1 to prod').waitFor();
    expect(
      count(
        app.dataDir,
        "SELECT COUNT(*) FROM deployments WHERE env = 'prod' AND ticket = 'REL-1001' AND service = 'order-service'",
      ),
    ).toBeGreaterThan(0);
    expect(count(app.dataDir, 'SELECT COUNT(*) FROM deployments')).toBe(before + 1);
    await expect(page.locator('.question-line').allTextContents()).resolves.toEqual([
      expect.stringContaining('answered'),
      expect.stringContaining('answered'),
    ]);
    await context.close();
  });

  it('a cancelled deploy deploys nothing (Esc cancels)', async () => {
    const context = await browser.newContext();
    const page = await openChat(context);
    const before = count(app.dataDir, 'SELECT COUNT(*) FROM deployments');
    await sendLine(page, '/deploy_service service=payment-service');
    await question(page, 'payment-service');
    await page.keyboard.press('Escape');
    expect(await toolStatus(page)).toBe('cancelled');
    // The person reads their own sentence; the model's text ("…do not retry…") is folded under it.
    await page.getByText('Cancelled: nothing was done.').waitFor();
    await expect(page.locator('.tool-call .told-model pre').last().textContent()).resolves.toContain(
      'The user cancelled deploy_service',
    );
    expect(count(app.dataDir, 'SELECT COUNT(*) FROM deployments')).toBe(before);
    await context.close();
  });

  it('decline, with the keyboard only', async () => {
    const context = await browser.newContext();
    const page = await openChat(context);
    const before = count(app.dataDir, 'SELECT COUNT(*) FROM deployments');
    await sendLine(page, '/deploy_service service=user-service');
    const dialog = await question(page, 'user-service');
    // Focus starts inside the dialog; Tab moves through it until the Decline button.
    for (let i = 0; i < 10; i++) {
      const focused = await page.evaluate(() => document.activeElement?.textContent ?? '');
      if (focused === 'Decline') break;
      await page.keyboard.press('Tab');
    }
    await expect(page.evaluate(() => document.activeElement?.closest('[role="dialog"]') !== null)).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect(await toolStatus(page)).toBe('declined');
    expect(count(app.dataDir, 'SELECT COUNT(*) FROM deployments')).toBe(before);
    await context.close();
  });

  it('a dangerous SQL statement runs only after the table name is typed', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await openChat(context);
    const before = count(app.dataDir, 'SELECT COUNT(*) FROM order_items');
    await sendLine(page, '/execute_sql {"sql":"DELETE FROM order_items WHERE quantity >= 3"}');
    const dialog = await question(page, 'order_items');
    await expect(dialog.textContent()).resolves.toContain('changes "order_items"');
    await dialog.getByLabel(/I understand this statement cannot be undone/).check();
    await dialog.getByLabel(/Type the table name/).fill('orders');
    await shot(page, 'form-typed-confirmation');
    await submit(page, dialog);
    expect(await toolStatus(page)).toBe('invalid');
    expect(count(app.dataDir, 'SELECT COUNT(*) FROM order_items')).toBe(before);

    await sendLine(page, '/execute_sql {"sql":"DELETE FROM order_items WHERE quantity >= 3"}');
    const again = await question(page, 'order_items');
    await again.getByLabel(/I understand this statement cannot be undone/).check();
    await again.getByLabel(/Type the table name/).fill('order_items');
    await submit(page, again);
    expect(await toolStatus(page)).toBe('done');
    expect(count(app.dataDir, 'SELECT COUNT(*) FROM order_items')).toBeLessThan(before - 100);
    await context.close();
  });

  it('a sync conflict only a person can decide (in the dark colour scheme)', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'dark' });
    const page = await openChat(context);
    for (const side of ['local', 'remote']) {
      mkdirSync(join(app.dataDir, 'workspace', side, 'notes'), { recursive: true });
      writeFileSync(join(app.dataDir, 'workspace', side, 'notes', 'e2e.md'), `${side} edit\n`);
    }
    await sendLine(page, '/sync_file path=notes/e2e.md');
    const dialog = await question(page, 'changed on both sides');
    await expect(dialog.textContent()).resolves.toContain('changed on both sides since the last sync');
    await shot(page, 'form-radio-choice');
    await dialog.getByLabel('Keep my local version').check();
    await submit(page, dialog);
    expect(await toolStatus(page)).toBe('done');
    expect(readFileSync(join(app.dataDir, 'workspace', 'remote', 'notes', 'e2e.md'), 'utf8')).toBe('local edit\n');
    await context.close();
  });

  it('a weekly report with a bad range is invalid, with the reason shown', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await openChat(context);
    await sendLine(page, '/weekly_report project=order-service');
    const dialog = await question(page, 'weekly report');
    await dialog.getByLabel(/From/).fill('2026-03-10');
    await dialog.getByLabel(/^To/).fill('2026-03-01');
    await shot(page, 'form-dates');
    await submit(page, dialog);
    expect(await toolStatus(page)).toBe('invalid');
    await page.getByText('The range starts (2026-03-10) after it ends (2026-03-01).').waitFor();
    await context.close();
  });

  it('registration: a form, then URL mode to the password page in a new tab, then done', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await openChat(context);
    await sendLine(page, '/register_user');
    const form = await question(page, 'Create your opsdesk account');
    await form.getByLabel(/Username/).fill('e2e_user');
    await form.getByLabel(/Email/).fill('e2e@example.com');
    await form.getByLabel(/newsletter/).check();
    await shot(page, 'form-email-and-boolean');
    await submit(page, form);

    const consent = await question(page, 'Set the password for e2e_user', 'URL consent visible after the tool asked');
    await expect(consent.textContent()).resolves.toContain('127.0.0.1');
    await shot(page, 'url-consent');
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      consent.getByRole('button', { name: /Open/ }).click(),
    ]);
    await tab.waitForLoadState();
    expect(await tab.evaluate(() => window.opener)).toBeNull();
    // While the person is on the page, the call says so, with the link again and a way out.
    const waiting = page.locator('.tool-call [data-waiting]');
    await waiting.getByText(/Waiting for you on 127\.0\.0\.1:\d+/).waitFor();
    await expect(waiting.getByRole('link', { name: 'Reopen link' }).getAttribute('href')).resolves.toBe(tab.url());
    await waiting.getByRole('button', { name: 'Give up' }).waitFor();
    await tab.getByLabel('New password').fill('correct horse battery');
    await tab.getByLabel('Repeat it').fill('correct horse battery');
    await shot(tab, 'password-page');
    await tab.getByRole('button', { name: 'Set password' }).click();
    await tab.getByText('is set').waitFor();
    expect(await toolStatus(page)).toBe('done');
    await page.getByText('Account e2e_user created and its password set.').waitFor();
    expect(
      count(app.dataDir, "SELECT COUNT(*) FROM users WHERE username = 'e2e_user' AND password_hash LIKE 'scrypt$%'"),
    ).toBe(1);
    await context.close();
  });

  it('registration: an Open whose accept did not go through opens nothing, says why, and can be pressed again', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await openChat(context);
    const opened: string[] = [];
    context.on('page', (p) => opened.push(p.url()));
    await sendLine(page, '/register_user');
    const form = await question(page, 'Create your opsdesk account');
    await form.getByLabel(/Username/).fill('e2e_retry');
    await form.getByLabel(/Email/).fill('retry@example.com');
    await submit(page, form);
    const consent = await question(page, 'Set the password for e2e_retry');
    // The accept is lost on the network: the link must not open, and the dialog must stay answerable.
    await page.route('**/api/elicitations/**', (route) => route.abort('connectionreset'));
    await consent.getByRole('button', { name: /Open/ }).click();
    await consent.getByText(/The answer could not be sent/).waitFor();
    expect(opened).toEqual([]);
    await page.unroute('**/api/elicitations/**');
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      consent.getByRole('button', { name: /Open/ }).click(),
    ]);
    await tab.waitForLoadState();
    expect(opened).toHaveLength(1);
    await tab.getByLabel('New password').waitFor();
    await context.close();
  });

  it('registration given up on the page: the card and the call are settled, no account made', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await openChat(context);
    await sendLine(page, '/register_user');
    const form = await question(page, 'Create your opsdesk account');
    await form.getByLabel(/Username/).fill('e2e_quitter');
    await form.getByLabel(/Email/).fill('quitter@example.com');
    await submit(page, form);
    const consent = await question(page, 'Set the password for e2e_quitter');
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      consent.getByRole('button', { name: /Open/ }).click(),
    ]);
    await tab.waitForLoadState();
    const waiting = page.locator('.tool-call [data-waiting]');
    await waiting.getByRole('button', { name: 'Give up' }).click();
    await page.locator('.tool-call [data-stopped]').getByText('Stopped: no result.').waitFor();
    await expect(page.locator('.tool-call').last().textContent()).resolves.not.toContain('running…');
    expect(count(app.dataDir, "SELECT COUNT(*) FROM users WHERE username = 'e2e_quitter'")).toBe(0);
    await context.close();
  });

  it('the audit page lists the questions and their outcomes', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    // The page shows what the chat's user may see: this browser's chat acts as the local owner,
    // who sees everyone's records (a browser without a chat sees none: audit-access.e2e.ts).
    await page.goto(app.url);
    // Its tools listed: opsdesk has started, so its database (and the trail) exists.
    await page.locator('details[data-tool="deploy_service"]').waitFor({ timeout: 30_000 });
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    await page.getByText('Everyone’s records: the chat acts as owner').waitFor();
    const rows = page.locator('tr[data-tool="deploy_service"]');
    expect(await rows.count()).toBeGreaterThanOrEqual(4);
    await expect(page.locator('table').textContent()).resolves.toMatch(/decline/);
    await shot(page, 'audit');
    await context.close();
  });
});

describe('every field kind, from a server of our own (ELICITKIT_SERVERS, 2025-11-25 push)', () => {
  it('draws, checks and sends each kind', async () => {
    const server = {
      name: 'fieldkit',
      command: [process.execPath, '--import', 'tsx', '--conditions=@elicitkit/source', EVERY_FIELD_SERVER],
      revision: '2025-11-25',
    };
    await withApp({ ELICITKIT_SERVERS: JSON.stringify([server]) }, async (own) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 1500 } });
      const page = await openChat(context, own.url, 'every_field');
      await sendLine(page, '/every_field');
      const dialog = await question(page, 'Tell us about the new service owner.');
      await shot(page, 'form-every-kind');

      // Submit refused: every required field says what it needs, and focus goes to the first.
      await dialog.getByRole('button', { name: 'Submit' }).click();
      await dialog.getByRole('alert').filter({ hasText: /fix/i }).waitFor();
      await expect(page.evaluate(() => document.activeElement?.id ?? '')).resolves.toMatch(/f0$/);
      await shot(page, 'form-every-kind-errors');

      await dialog.getByLabel(/Display name/).fill('Mei');
      await dialog.getByLabel(/Work email/).fill('not-an-email');
      await dialog.getByLabel(/Homepage/).fill('https://mei.example/');
      await dialog.getByLabel(/Work email/).press('Tab');
      await expect(dialog.getByLabel(/Work email/).getAttribute('aria-invalid')).resolves.toBe('true');
      await dialog.getByLabel(/Work email/).fill('mei@example.com');
      await dialog.getByLabel(/Start date/).fill('2026-12-01');
      await dialog.getByLabel(/Maintenance window/).fill('2026-12-05T22:30');
      await dialog.getByLabel(/Budget/).fill('1500.5');
      await expect(dialog.getByLabel(/Replicas/).inputValue()).resolves.toBe('2'); // the default, pre-filled
      await dialog.getByLabel(/Replicas/).fill('3');
      await dialog.getByLabel(/on-call rota/).check();
      await dialog.getByLabel('Europe').check();
      await dialog.getByLabel(/Zone/).selectOption('zone-c');
      await dialog.getByLabel('Email', { exact: true }).check();
      await dialog.getByLabel('Chat', { exact: true }).check();
      await expect(dialog.getByLabel('SMS', { exact: true }).isDisabled()).resolves.toBe(true); // maxItems 2
      await dialog.getByLabel('团队名称').fill('平台组');
      await shot(page, 'form-every-kind-filled');
      await submit(page, dialog);

      expect(await toolStatus(page)).toBe('done');
      const text = (await page.locator('.tool-call[data-state="output-available"]').last().textContent()) ?? '';
      for (const part of [
        '"name":"Mei"',
        '"email":"mei@example.com"',
        '"homepage":"https://mei.example/"',
        '"start":"2026-12-01"',
        '"window":"2026-12-05T22:30:00',
        '"budget":1500.5',
        '"replicas":3',
        '"agree":true',
        '"region":"eu"',
        '"zone":"zone-c"',
        '"notify":["email","chat"]',
        '"team":"平台组"',
      ]) {
        expect(text).toContain(part);
      }
      await context.close();
    });
  });

  it('sends what the person sees: a default they cleared is not put back', async () => {
    const server = {
      name: 'fieldkit',
      command: [process.execPath, '--import', 'tsx', '--conditions=@elicitkit/source', EVERY_FIELD_SERVER],
      revision: '2025-11-25',
    };
    await withApp({ ELICITKIT_SERVERS: JSON.stringify([server]) }, async (own) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await openChat(context, own.url, 'handover');
      await sendLine(page, '/handover');
      const dialog = await question(page, 'Anything for the next person on call?');
      await expect(dialog.getByLabel(/Handover note/).inputValue()).resolves.toBe('none');
      await expect(dialog.getByLabel(/On-call hours/).inputValue()).resolves.toBe('8');
      await dialog.getByLabel(/Handover note/).fill('');
      await submit(page, dialog);
      expect(await toolStatus(page)).toBe(''); // a raw tool's result carries no Elicitkit status
      const text = (await page.locator('.tool-call[data-state="output-available"]').last().textContent()) ?? '';
      expect(text).toContain('accept: received {"hours":8}');
      await context.close();
    });
  });
});

describe.each([
  ['en', {}],
  ['zh', { ELICITKIT_LANG: 'zh' }],
] as const)('the prompts that carry the decision (%s)', (lang, env) => {
  const expected = {
    en: {
      sql: 'Statement:',
      sync: 'Differences (- remote, + local):',
      prod: 'v2.3.0 → v2.3.1',
    },
    zh: {
      sql: '语句：',
      sync: '差异（- 远端，+ 本地）：',
      prod: 'v2.3.0 → v2.3.1',
    },
  }[lang];

  it('SQL shows the statement and the rows; sync shows sizes, local times and a diff; prod shows the version change', async () => {
    await withApp(env, async (served) => {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        ...(lang === 'zh' ? { locale: 'zh-CN' } : {}),
      });
      const page = await openChat(context, served.url);
      const dismiss = async (dialog: ReturnType<Page['getByRole']>) => {
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
        expect(await toolStatus(page)).toBe('cancelled');
      };

      const stock = count(served.dataDir, 'SELECT SUM(stock) FROM products');
      await sendLine(page, '/execute_sql {"sql":"UPDATE products SET stock = stock + 1"}');
      const sql = await question(page, expected.sql);
      // The statement whole, as it runs, in a block of its own.
      await expect(sql.locator('pre.ek-code').first().textContent()).resolves.toBe(
        'UPDATE products SET stock = stock + 1',
      );
      await expect(sql.textContent()).resolves.toContain(
        lang === 'en' ? '- `products`: 50 rows updated (it had 50)' : '- `products`：更新 50 行（原有 50 行）',
      );
      await shot(page, `decision-sql-${lang}`);
      await dismiss(sql);
      expect(count(served.dataDir, 'SELECT SUM(stock) FROM products')).toBe(stock);

      for (const side of ['local', 'remote']) {
        mkdirSync(join(served.dataDir, 'workspace', side, 'notes'), { recursive: true });
        writeFileSync(
          join(served.dataDir, 'workspace', side, 'notes', 'decision.md'),
          `# Release plan\n\n- order-service v2.3.1\n- ${side === 'local' ? 'search-service: relevance tuning, shipped' : 'search-service: relevance tuning, in review'}\n- payment-service v1.8.0\n`,
        );
      }
      await sendLine(page, '/sync_file path=notes/decision.md');
      const sync = await question(page, expected.sync);
      const text = (await sync.textContent()) ?? '';
      expect(text).toContain('- - search-service: relevance tuning, in review');
      expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T|\.\d{3}Z/);
      await shot(page, `decision-sync-${lang}`);
      await dismiss(sync);

      await sendLine(page, '/deploy_service service=order-service env=prod');
      const prod = await question(page, expected.prod);
      await shot(page, `decision-prod-${lang}`);
      await dismiss(prod);
      await context.close();
    });
  });
});

describe('in Chinese (ELICITKIT_LANG=zh)', () => {
  it('asks, labels and deploys in Chinese', async () => {
    await withApp({ ELICITKIT_LANG: 'zh' }, async (zh) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'zh-CN' });
      const page = await openChat(context, zh.url);
      await sendLine(page, '/deploy_service service=user-service');
      const dialog = await question(page, '要把「user-service」v3.0.2 部署到哪个环境？');
      await dialog.getByLabel('开发 (dev)').check();
      await shot(page, 'form-zh');
      await submit(page, dialog, '提交');
      expect(await toolStatus(page)).toBe('done');
      expect(count(zh.dataDir, "SELECT COUNT(*) FROM deployments WHERE service = 'user-service' AND env = 'dev'")).toBe(
        1,
      );
      await context.close();
    });
  });
});

describe('a broken configuration', () => {
  it('says on the page which variable is wrong', async () => {
    await withApp({ ELICITKIT_SERVERS: '[{"name":"x","url":"ftp://nowhere"}]' }, async (broken) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(broken.url);
      await page
        .getByRole('alert')
        .filter({ hasText: 'The configuration is invalid: ELICITKIT_SERVERS[0].url must be an http(s) URL' })
        .waitFor();
      await expect(page.getByRole('status').textContent()).resolves.toBe('Not connected');
      await context.close();
    });
  });
});

describe('a question nobody answers', () => {
  it('expires, and the tool result says it timed out (not that the person cancelled)', async () => {
    await withApp({ ELICITKIT_QUESTION_TIMEOUT_MS: '2000' }, async (quick) => {
      const context = await browser.newContext();
      const page = await openChat(context, quick.url);
      await sendLine(page, '/deploy_service service=order-service');
      await question(page, 'order-service');
      expect(await toolStatus(page)).toBe('timeout');
      await page.getByText('no answer in time: the tool was told it timed out').waitFor();
      await page.getByText('No answer came in time, so nothing was done.').waitFor();
      await expect(page.locator('.tool-call .told-model pre').last().textContent()).resolves.toContain(
        'the question timed out in the browser',
      );
      expect(count(quick.dataDir, 'SELECT COUNT(*) FROM deployments')).toBe(6);
      await context.close();
    });
  });
});

describe('a chat turn with a model (a scripted OpenAI-compatible endpoint)', () => {
  it('calls deploy_service, which asks the person, then reports', async () => {
    const model = await startScriptedModel();
    const env = { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: model.apiKey, ELICITKIT_MODEL: model.model };
    await withApp(env, async (mocked) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await openChat(context, mocked.url);
      await expect(page.getByRole('status').textContent()).resolves.toContain(`${model.model} via ${model.baseURL}`);
      await sendLine(page, 'Please deploy search-service');
      const dialog = await question(page, 'search-service', 'question visible after the tool asked (model)');
      await expect(dialog.textContent()).resolves.toContain('Which environment should search-service');
      await dialog.getByLabel('Staging (staging)').check();
      await submit(page, dialog);
      await page
        .getByText(/The deploy tool answered: .*Deployed search-service v0\.9\.4 to staging/)
        .waitFor({ timeout: 60_000 });
      await shot(page, 'chat-with-model');
      expect(
        count(mocked.dataDir, "SELECT COUNT(*) FROM deployments WHERE service = 'search-service' AND env = 'staging'"),
      ).toBe(1);
      // The app took the real provider path: a streamed request offering the tools, then one with the tool's result.
      expect(model.requests.map((r) => r.messages.at(-1)?.role)).toEqual(['user', 'tool']);
      expect(model.requests[0]?.tools?.map((t) => t.function.name)).toContain('deploy_service');
      await context.close();
    }).finally(() => model.close());
  });
});
