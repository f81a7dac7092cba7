// @vitest-environment jsdom
import type { FormSchema } from '@elicitkit/form';
import { cleanup, render, screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formPrompt } from '../test/prompts.js';
import { isoToLocal } from './date-time.js';
import { ElicitationForm } from './elicitation-form.js';

afterEach(cleanup);

const ENV = {
  type: 'string',
  title: 'Environment',
  oneOf: [
    { const: 'dev', title: 'Development' },
    { const: 'staging', title: 'Staging' },
    { const: 'prod', title: 'Production' },
  ],
} as const;

const EVERY_KIND: FormSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', description: 'As on your badge', minLength: 2, default: 'Ann' },
    email: { type: 'string', title: 'Email', format: 'email', default: 'ann@example.com' },
    site: { type: 'string', title: 'Site', format: 'uri' },
    day: { type: 'string', title: 'Day', format: 'date', default: '2026-03-01' },
    at: { type: 'string', title: 'At', format: 'date-time', default: '2026-03-01T09:30:00Z' },
    ratio: { type: 'number', title: 'Ratio', minimum: 0, maximum: 1, default: 0.5 },
    replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 9, default: 2 },
    notify: { type: 'boolean', title: 'Notify the team', default: true },
    env: { ...ENV, oneOf: [...ENV.oneOf], default: 'staging' },
    region: { type: 'string', title: 'Region', enum: ['eu', 'us', 'ap', 'af', 'sa', 'oc'], default: 'ap' },
    tags: {
      type: 'array',
      title: 'Tags',
      items: {
        anyOf: [
          { const: 'x', title: 'Ex' },
          { const: 'y', title: 'Why' },
          { const: 'z', title: 'Zed' },
        ],
      },
      maxItems: 2,
      default: ['x'],
    },
  },
  required: ['name', 'env'],
};

const DEPLOY: FormSchema = {
  type: 'object',
  properties: {
    env: { ...ENV, oneOf: [...ENV.oneOf] },
    ticket: { type: 'string', title: 'Release ticket', minLength: 4 },
    note: { type: 'string', title: 'Note' },
  },
  required: ['env', 'ticket'],
};

function draw(props: Partial<Parameters<typeof ElicitationForm>[0]> = {}) {
  const handlers = { onSubmit: vi.fn(), onDecline: vi.fn(), onCancel: vi.fn() };
  const prompt = props.prompt ?? formPrompt(EVERY_KIND);
  const view = render(<ElicitationForm prompt={prompt} {...handlers} {...props} />);
  const redraw = (more: Partial<Parameters<typeof ElicitationForm>[0]>) =>
    view.rerender(<ElicitationForm prompt={prompt} {...handlers} {...props} {...more} />);
  return { ...handlers, redraw, user: userEvent.setup({ delay: null }) };
}

const input = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const describedText = (el: HTMLElement) =>
  (el.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent)
    .join(' | ');

describe('<ElicitationForm>', () => {
  it('draws every field kind with its label bound, help linked and defaults pre-filled', () => {
    draw();
    expect(screen.getByRole('dialog', { name: 'Ops Desk asks' }).getAttribute('aria-modal')).toBe('true');
    expect(screen.getByText('opsdesk')).toBeTruthy();
    expect(screen.getByText('v1.0.0')).toBeTruthy();
    expect(screen.getByText('Which release should be deployed, and where?')).toBeTruthy();

    expect(input('Name')).toMatchObject({ type: 'text', value: 'Ann', required: true });
    expect(describedText(input('Name'))).toContain('As on your badge');
    expect(input('Email')).toMatchObject({
      type: 'text',
      inputMode: 'email',
      value: 'ann@example.com',
      required: false,
    });
    expect(input('Site')).toMatchObject({ type: 'text', inputMode: 'url', value: '' });
    // Typed as YYYY-MM-DD (the wire's format, stated in the hint), with a calendar button beside it.
    expect(input('Day')).toMatchObject({ type: 'text', value: '2026-03-01', placeholder: 'YYYY-MM-DD' });
    expect(describedText(input('Day'))).toContain('YYYY-MM-DD');
    expect(input('At').type).toBe('datetime-local');
    expect(input('At').value.startsWith(isoToLocal('2026-03-01T09:30:00Z').slice(0, 16))).toBe(true);
    expect(input('Ratio')).toMatchObject({ value: '0.5', inputMode: 'decimal' });
    expect(input('Replicas')).toMatchObject({ value: '2', inputMode: 'numeric' });
    expect(describedText(input('Replicas'))).toContain('Whole number, 1–9');
    expect(screen.getByRole('checkbox', { name: 'Notify the team' })).toMatchObject({ checked: true });

    const env = within(screen.getByRole('group', { name: 'Environment' }));
    expect(env.getByRole('radio', { name: 'Staging' })).toMatchObject({ checked: true, value: 'staging' });
    expect(env.queryByRole('radio', { name: 'No answer' })).toBeNull();
    expect(screen.getByRole('combobox', { name: 'Region' })).toMatchObject({ value: 'ap' });
    const tags = within(screen.getByRole('group', { name: 'Tags' }));
    expect(tags.getByRole('checkbox', { name: 'Ex' })).toMatchObject({ checked: true, value: 'x' });
    expect(screen.getByText('Choose at most 2 choices')).toBeTruthy();

    const ids = [...document.querySelectorAll('[id]')].map((el) => el.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const label of document.querySelectorAll('label')) expect(document.getElementById(label.htmlFor)).toBeTruthy();
  });

  it('moves focus into the form on open', () => {
    draw();
    expect(document.activeElement).toBe(input('Name'));
  });

  it('submits the pre-filled defaults as they are', async () => {
    const { onSubmit, user } = draw();
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({
      name: 'Ann',
      email: 'ann@example.com',
      day: '2026-03-01',
      at: '2026-03-01T09:30:00Z',
      ratio: 0.5,
      replicas: 2,
      notify: true,
      env: 'staging',
      region: 'ap',
      tags: ['x'],
    });
  });

  it('validates inline, refuses to submit, focuses the first problem, and takes the correction', async () => {
    const { onSubmit, user } = draw();
    await user.clear(input('Name'));
    await user.type(input('Name'), 'A');
    expect(input('Name').getAttribute('aria-invalid')).toBeNull(); // not while typing the first time
    await user.tab();
    expect(input('Name').getAttribute('aria-invalid')).toBe('true');
    expect(describedText(input('Name'))).toContain('"Name" needs at least 2 characters.');

    await user.clear(input('Replicas'));
    await user.type(input('Replicas'), 'three');
    await user.clear(input('Ratio'));
    await user.type(input('Ratio'), '1.5');
    await user.clear(input('Email'));
    await user.type(input('Email'), 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toBe('Not sent yet: fix the 4 fields marked below.');
    expect(document.activeElement).toBe(input('Name'));
    expect(describedText(input('Replicas'))).toContain('Type a whole number, like 3 (got "three").');
    expect(describedText(input('Ratio'))).toContain('"Ratio" must be at most 1.');
    expect(describedText(input('Email'))).toContain('"Email" must be an email address.');

    await user.type(input('Name'), 'l');
    expect(input('Name').getAttribute('aria-invalid')).toBeNull(); // live once shown
    for (const [label, text] of [
      ['Replicas', '9'],
      ['Ratio', '0.25'],
      ['Email', 'al@example.com'],
    ] as const) {
      await user.clear(input(label));
      await user.type(input(label), text);
    }
    expect(screen.queryByRole('alert')).toBeNull();
    await user.keyboard('{Enter}');
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ name: 'Al', replicas: 9, ratio: 0.25, email: 'al@example.com' }),
    );
  });

  it('reports a cleared required field, sends a cleared optional one as cleared (never its default), leaves empty ones out', async () => {
    const { onSubmit, user } = draw();
    await user.clear(input('Name'));
    await user.clear(input('Email'));
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(describedText(input('Name'))).toContain('"Name" is required.');
    expect(onSubmit).not.toHaveBeenCalled();
    await user.type(input('Name'), 'Bo');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    const sent = onSubmit.mock.calls[0]?.[0];
    expect(sent).toMatchObject({ name: 'Bo' });
    // What the person saw on submit: the email they cleared is not put back behind their back.
    expect(sent).not.toHaveProperty('email');
    expect(sent).not.toHaveProperty('site');
  });

  it('refuses a number it cannot send as typed, rather than rounding it behind the person’s back', async () => {
    const { onSubmit, user } = draw();
    for (const [typed, arrives] of [
      ['0.10000000000000000001', '0.1'],
      ['1e-400', '0'],
      ['-0', '0'],
    ] as const) {
      await user.clear(input('Ratio'));
      await user.type(input('Ratio'), typed);
      await user.click(screen.getByRole('button', { name: 'Submit' }));
      expect(onSubmit).not.toHaveBeenCalled();
      expect(describedText(input('Ratio'))).toContain(
        `${typed} cannot be sent exactly: it would arrive as ${arrives}.`,
      );
    }
    // The same number spelled another way is the same number.
    await user.clear(input('Ratio'));
    await user.type(input('Ratio'), '2.50e-1');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ ratio: 0.25 }));
  });

  it('shows every date-time the protocol allows in its datetime-local input, as the value it sends', async () => {
    // Values the form's validator accepts (RFC 3339 as ajv-formats reads it) that a browser's
    // Date.parse does not: an hour-only zone, a leap second; and years before 1000.
    vi.stubEnv('TZ', 'UTC');
    try {
      const values = {
        zone: '2026-03-01T09:30:00+05',
        leap: '2016-12-31T23:59:60Z',
        early: '0950-06-01T12:00:00Z',
        lower: '2026-03-01t09:30:00z',
      };
      const properties = Object.fromEntries(
        Object.entries(values).map(([name, value]) => [
          name,
          { type: 'string', title: name, format: 'date-time', default: value } as const,
        ]),
      );
      const { onSubmit, user } = draw({ prompt: formPrompt({ type: 'object', properties }) });
      // The input normalizes its value: whole minutes lose their :00.
      expect(input('zone').value).toBe('2026-03-01T04:30');
      // 23:59:60 cannot be typed into the input: its day and minute are shown, the second it can hold.
      expect(input('leap').value.startsWith('2016-12-31T23:59:59')).toBe(true);
      expect(input('early').value).toBe('0950-06-01T12:00');
      expect(input('lower').value).toBe('2026-03-01T09:30');
      await user.click(screen.getByRole('button', { name: 'Submit' }));
      expect(onSubmit).toHaveBeenCalledExactlyOnceWith(values);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it.each([
    [
      'Decline',
      'onDecline',
      (user: ReturnType<typeof userEvent.setup>) => user.click(screen.getByRole('button', { name: 'Decline' })),
    ],
    [
      'Cancel',
      'onCancel',
      (user: ReturnType<typeof userEvent.setup>) => user.click(screen.getByRole('button', { name: 'Cancel' })),
    ],
    ['Esc', 'onCancel', (user: ReturnType<typeof userEvent.setup>) => user.keyboard('{Escape}')],
  ] as const)('answers %s without content', async (_name, handler, press) => {
    const drawn = draw({ prompt: formPrompt(DEPLOY) });
    await press(drawn.user);
    expect(drawn[handler]).toHaveBeenCalledExactlyOnceWith();
    expect(drawn.onSubmit).not.toHaveBeenCalled();
  });
});
