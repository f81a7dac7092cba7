/**
 * What a locale's labels make of server text is drawn clean: a field's title with bidi overrides
 * reaches an error message through `labels.issue()` (LABELS_ZH quotes the title, so may a host's
 * own labels), and a URL warning through `labels.urlWarning()`. Everything else drawn from server
 * text goes through `plain()`; so do these, whatever the locale.
 */
import { describeFields, type FormSchema, type IssueCode } from '@elicitkit/form';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { formPrompt, urlPrompt } from '../test/prompts.js';
import { ElicitationForm } from './elicitation-form.js';
import { LABELS_EN, type Labels } from './labels.js';
import { LABELS_ZH } from './labels-zh.js';
import { UrlConsent } from './url-consent.js';

const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/;
const TITLE = 'Amount \u202e(DSU)\u202c';

const SCHEMA: FormSchema = {
  type: 'object',
  properties: {
    // Reads "Amount (USD)" left to right when drawn raw; the bytes say otherwise.
    amount: { type: 'string', title: TITLE, minLength: 3 },
  },
  required: ['amount'],
};
// @elicitkit/client's checks remove these characters from titles (d1aca5f); a prompt a host builds
// itself may still carry them, and the components clean what they draw either way.
const prompt = { ...formPrompt(SCHEMA), schema: SCHEMA, fields: describeFields(SCHEMA) };

/** A host's own locale whose messages quote the field's title as it is. */
const QUOTING: Labels = {
  ...LABELS_EN,
  issue: (code, field) => `${field.label}: ${code}`,
  urlWarning: (code, message) => `${code} — ${message}`,
};

const draw = (labels: Labels, code: IssueCode = 'required') =>
  renderToString(
    createElement(ElicitationForm, {
      prompt,
      labels,
      serverIssues: [{ path: ['amount'], code, message: `${TITLE} is not accepted.` }],
      onSubmit: () => {},
      onDecline: () => {},
      onCancel: () => {},
    }),
  );

describe('field errors drawn with a hostile field title', () => {
  it('the English form strips the bidi overrides (the validator sentence)', () => {
    expect(prompt.fields[0]?.label).toMatch(BIDI);
    const html = draw(LABELS_EN);
    expect(html).toContain('Amount (DSU) is not accepted.');
    expect(html, 'English field error carries a bidi override').not.toMatch(BIDI);
  });

  it.each([
    ['required', '为必填项'],
    ['too_short', '至少需要 3 个字符'],
  ] as const)('the Chinese form strips them too (%s)', (code, words) => {
    const html = draw(LABELS_ZH, code);
    expect(html).toContain(words);
    expect(html).toContain('“Amount (DSU)”');
    expect(html, 'Chinese field error carries the raw bidi override of the server title').not.toMatch(BIDI);
  });

  it("a host's own labels that quote the title are cleaned as well", () => {
    const html = draw(QUOTING);
    expect(html).toContain('Amount (DSU): required');
    expect(html).not.toMatch(BIDI);
  });
});

describe('URL warnings through the labels', () => {
  it('are drawn without bidi overrides', () => {
    const url = urlPrompt('https://example.com/reset');
    const warnings = [{ code: 'insecure' as const, message: 'Sent in the clear to \u202emoc.elpmaxe\u202c.' }];
    const html = renderToString(
      createElement(UrlConsent, {
        prompt: { ...url, warnings },
        labels: QUOTING,
        onOpen: () => {},
        onDecline: () => {},
        onCancel: () => {},
      }),
    );
    expect(html).toContain('insecure — Sent in the clear to moc.elpmaxe.');
    expect(html).not.toMatch(BIDI);
  });
});
