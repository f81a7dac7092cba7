/**
 * The audit page draws what opsdesk recorded — the question's message, the person's answer, the
 * username, a validation's words — as the dialog draws a server's text: bidi overrides and control
 * characters removed. An answer typed with a right-to-left override read on the trail as something
 * the person never sent. Real chat routes, the embedded opsdesk, its real audit database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-audit-'));
process.env.ELICITKIT_DATA = data;
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL', 'ELICITKIT_SERVERS'])
  delete process.env[name];

const { newBrowser, ask, answer } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
const { auditTrail } = await import('../lib/audit');
const { AuditView } = await import('../components/audit-view');

afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/;

describe('the audit page', () => {
  it('a question quoting hostile SQL, and a typed answer quoted back: drawn without their overrides', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/execute_sql sql="DELETE FROM order_items -- \u202eredro\u202c"');
    // The typed table name is refused, and the refusal quotes it back.
    const sent = { action: 'accept', content: { understood: true, typedTableName: 'ord\u202esre\u202c' } };
    expect((await answer(b, q.id, sent)).status).toBe(200);
    let trail: Awaited<ReturnType<typeof auditTrail>>;
    await expect
      .poll(async () => {
        trail = await auditTrail();
        return (trail?.validations ?? []).length;
      })
      .toBeGreaterThan(0);
    expect(JSON.stringify(trail?.validations)).toContain('is not the table');
    for (const locale of ['en', 'zh'] as const) {
      const html = renderToStaticMarkup(createElement(AuditView, { trail, locale }));
      expect(html).toContain('execute_sql');
      expect(html, locale).not.toMatch(BIDI);
    }
  });

  // opsdesk replaces overrides in what it quotes; the page does not count on it (a trail written by
  // another version, or by hand): every recorded text is drawn through plainText.
  it('a trail holding overrides in every text it records: none reaches the page', () => {
    const at = '2026-12-04T12:00:00Z';
    const r = { context_id: 'c\u202e1', question: 'con\u202efirm', tool: 'exec\u202eute', username: 'ow\u202ener', at };
    const trail = {
      requests: [{ ...r, message: 'Delete \u202esredro\u202c?', delivered: false, reason: 'no \u2066form' }],
      responses: [{ ...r, action: 'accept', content: { note: 'ok\u202e' } }],
      validations: [{ ...r, ok: false, issues: [{ message: '"ord\u202esre" is wrong' }] }],
      violations: [],
      refusals: [{ ...r, context_id: 'd', message: 'refused \u202eyes' }],
    };
    for (const locale of ['en', 'zh'] as const) {
      const html = renderToStaticMarkup(createElement(AuditView, { trail, locale }));
      expect(html).toContain('Delete sredro?');
      expect(html).toContain('ordsre&quot; is wrong');
      expect(html).toContain('owner');
      expect(html, locale).not.toMatch(BIDI);
    }
  });

  // A JSON column (an answer's content, a form's fields) keeps half a character as `\ud800`, and a
  // trail written by another version may hold one anywhere: drawn as U+FFFD, never as half.
  it('a trail holding half characters: drawn as U+FFFD', () => {
    const at = '2026-12-04T12:00:00Z';
    const r = { context_id: 'c1', question: 'q\ud800', tool: 'exec\udc00', username: 'ow\udbffner', at };
    const trail = {
      requests: [{ ...r, message: 'Delete \ud800orders?', delivered: true }],
      responses: [{ ...r, action: 'accept', content: { note: 'ok' } }],
      validations: [{ ...r, ok: false, issues: [{ message: '"ord\udc00" is wrong' }] }],
      violations: [],
      refusals: [{ ...r, context_id: 'd', message: 'refused \ud800' }],
    };
    for (const locale of ['en', 'zh'] as const) {
      const html = renderToStaticMarkup(createElement(AuditView, { trail, locale }));
      expect(html).toContain('Delete \ufffdorders?');
      expect(html).toContain('ow\ufffdner');
      expect(html).toContain('ord\ufffd&quot; is wrong');
      expect(html, locale).not.toMatch(/\p{Cs}/u);
    }
    const failed = renderToStaticMarkup(
      createElement(AuditView, { trail: undefined, failure: 'no such table: \ud800', locale: 'en' }),
    );
    expect(failed).toContain('no such table: \ufffd');
  });

  it('a trail it cannot read: says why, drawn the same way', () => {
    const html = renderToStaticMarkup(
      createElement(AuditView, { trail: undefined, failure: 'no such table: \u202eelbat', locale: 'en' }),
    );
    expect(html).toContain('The audit trail could not be read: no such table: elbat');
    expect(html).not.toMatch(BIDI);
  });

  it('a validation record whose issues are not a list: the page still draws', () => {
    const trail = {
      requests: [
        { context_id: 'c', question: 'q', tool: 't', message: 'Which?', delivered: true, at: '2026-12-04T12:00:00Z' },
      ],
      responses: [],
      validations: [{ context_id: 'c', question: 'q', ok: false, issues: 'broken' }],
      violations: [],
      refusals: [],
    };
    expect(renderToStaticMarkup(createElement(AuditView, { trail, locale: 'en' }))).toContain('Which?');
  });
});
