// @vitest-environment jsdom
/**
 * What the person sees in a field is what is sent: a server's default is drawn in a one-line
 * input, so it starts as what that input can show. A default whose bidi override reverses it on
 * screen ("\u202Eniam-erutaef" reads "feature-main"), whose line breaks an input drops, whose
 * control characters draw as nothing, or a date-time no local-time input can show, must not go
 * back as typed-looking text the person never saw.
 */
import type { FormSchema } from '@elicitkit/form';
import { cleanup, render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formPrompt } from '../test/prompts.js';
import { isoToLocal } from './date-time.js';
import { ElicitationForm } from './elicitation-form.js';

afterEach(cleanup);

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding what no one sees is the point.
const UNSEEN = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

async function submitted(properties: FormSchema['properties'], required: string[] = []) {
  const onSubmit = vi.fn();
  const schema = { type: 'object', properties, required } as FormSchema;
  render(<ElicitationForm prompt={formPrompt(schema)} onSubmit={onSubmit} onDecline={vi.fn()} onCancel={vi.fn()} />);
  const shown = Object.fromEntries(
    Object.entries(properties).map(([name, p]) => [
      name,
      (screen.getByLabelText(p.title ?? name) as HTMLInputElement).value,
    ]),
  );
  await userEvent.setup({ delay: null }).click(screen.getByRole('button', { name: 'Submit' }));
  return { shown, sent: onSubmit.mock.calls[0]?.[0] as Record<string, unknown> | undefined };
}

describe('<ElicitationForm>: a default is sent as it is shown', () => {
  it.each([
    ['a bidi override', '\u202eniam-erutaef', 'niam-erutaef'],
    ['isolates and marks', 'main\u2066\u2067\u2068\u2069\u200e\u200f\u061c', 'main'],
    ['a line break', 'line1\nrm -rf /', 'line1 rm -rf /'],
    ['CR LF and a lone CR', 'a\r\nb\rc', 'a b c'],
    ['control characters', 'rel\u0000ease\u001b[2J\u007f', 'release[2J'],
  ])('text with %s: drawn and sent without what no one sees', async (_label, value, plain) => {
    const { shown, sent } = await submitted({ branch: { type: 'string', title: 'Branch', default: value } });
    expect(shown.branch).toBe(plain);
    expect(sent).toEqual({ branch: plain });
  });

  it.each([
    ['email', { type: 'string', format: 'email', title: 'Email', default: 'ann@example.com' }],
    ['uri', { type: 'string', format: 'uri', title: 'Site', default: 'https://example.com/a?b=c' }],
    ['date', { type: 'string', format: 'date', title: 'Day', default: '2026-03-01' }],
    ['number', { type: 'number', title: 'Ratio', default: 1e21 }],
    ['integer', { type: 'integer', title: 'Replicas', default: 3 }],
    ['text with a tab', { type: 'string', title: 'Note', default: 'a\tb' }],
  ] as const)('%s: the value sent is the text in its input', async (_kind, property) => {
    const { shown, sent } = await submitted({ v: property });
    expect(sent).toBeDefined();
    expect(String(sent?.v)).toBe(shown.v);
    expect(String(sent?.v)).not.toMatch(UNSEEN);
  });

  it('a date-time no local-time input can show (year 0) is left empty: required, it is not sent', async () => {
    const at = { type: 'string', format: 'date-time', title: 'At', default: '0000-12-31T23:00:00Z' } as const;
    const required = await submitted({ at }, ['at']);
    expect(required.shown.at).toBe('');
    expect(required.sent).toBeUndefined();
    cleanup();
    const optional = await submitted({ at });
    expect(optional.shown.at).toBe('');
    expect(optional.sent).toEqual({});
  });

  it('a date-time it can show goes back exactly as it came, shown in local time', async () => {
    const value = '2026-03-01T09:30:00.250+05:30';
    const { shown, sent } = await submitted({
      at: { type: 'string', format: 'date-time', title: 'At', default: value },
    });
    // The input writes whole minutes without ':00' seconds: the same local time.
    expect(isoToLocal(value).startsWith(shown.at ?? '-')).toBe(true);
    expect(sent).toEqual({ at: value });
  });
});
