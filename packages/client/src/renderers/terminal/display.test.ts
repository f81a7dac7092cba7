import { Writable } from 'node:stream';
import type { FormSchema } from '@elicitkit/form';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createScreen, KEY } from '../../../test/screen.js';
import { formPrompt, urlPrompt } from '../conformance.suite.js';
import { createTerminalRenderer } from './index.js';

// node:util's styleText draws no styles when stdout is not a terminal, as under a test runner;
// with colours forced on, a struck-through value would show here as it does to a person.
beforeAll(() => {
  vi.stubEnv('FORCE_COLOR', '1');
});
afterAll(() => {
  vi.unstubAllEnvs();
});

interface Cell {
  char: string;
  struck: boolean;
}

/**
 * A terminal `columns` wide, as a person would see it: it replays what the renderer writes (cursor
 * moves, erasures, and the wrap at the right edge a real terminal does) into cells, each knowing
 * whether it is struck through. Keys go through the fake TTY of test/screen.ts.
 */
function terminal(columns: number, height = 200) {
  const screen = createScreen();
  const rows: Cell[][] = [[]];
  let row = 0;
  let col = 0;
  let struck = false;
  let raw = '';
  const line = () => {
    while (rows.length <= row) rows.push([]);
    return rows[row] as Cell[];
  };
  const play = (text: string) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: replaying escape sequences is the point.
    for (const [seq, params = '', final] of text.matchAll(/\u001b\[([0-9;?]*)([A-Za-z])|\u001b.|[\s\S]/gu)) {
      const n = Number.parseInt(params.replace('?', ''), 10) || 0;
      if (final === 'm') {
        for (const code of params.split(';').map(Number))
          struck = code === 9 ? true : code === 29 || code === 0 ? false : struck;
      } else if (final === 'A') row = Math.max(0, row - Math.max(n, 1));
      else if (final === 'B') row += Math.max(n, 1);
      else if (final === 'C') col += Math.max(n, 1);
      else if (final === 'D') col = Math.max(0, col - Math.max(n, 1));
      else if (final === 'G') col = Math.max(n, 1) - 1;
      else if (final === 'K') {
        if (n === 1) line().fill({ char: ' ', struck: false }, 0, col + 1);
        else line().splice(n === 2 ? 0 : col);
      } else if (final === 'J') {
        line().splice(col);
        rows.splice(row + 1);
      } else if (final !== undefined || seq.startsWith('\u001b')) continue;
      else if (seq === '\n') {
        row++;
        col = 0;
      } else if (seq === '\r') col = 0;
      else {
        if (col >= columns) {
          row++;
          col = 0;
        }
        const cells = line();
        while (cells.length < col) cells.push({ char: ' ', struck: false });
        cells[col++] = { char: seq, struck };
      }
    }
  };
  const output = new Writable({
    write(chunk, _encoding, done) {
      raw += String(chunk);
      play(String(chunk));
      screen.output.write(chunk, done);
    },
  });
  Object.assign(output, { columns, rows: height });
  return {
    screen,
    renderer: createTerminalRenderer({ input: screen.input, output, opener: () => {} }),
    raw: () => raw,
    /** What the terminal shows, line by line, without trailing blanks. */
    lines: () => {
      const shown = rows.map((r) =>
        r
          .map((c) => c.char)
          .join('')
          .trimEnd(),
      );
      while (shown.at(-1) === '') shown.pop();
      return shown;
    },
    /** The visible characters drawn struck through. */
    struck: () =>
      rows
        .flat()
        .filter((c) => c.struck && c.char.trim() !== '')
        .map((c) => c.char)
        .join(''),
  };
}

/** The lines after the last cancelled prompt's title (■), up to the renderer's closing line. */
function afterCancelledTitle(lines: string[]): string[] {
  const title = lines.findLastIndex((l) => l.startsWith('■'));
  const end = lines.findIndex((l, i) => i > title && l.includes('Cancelled: the operation stops here.'));
  expect(title, lines.join('\n')).toBeGreaterThanOrEqual(0);
  return lines.slice(title + 1, end === -1 ? undefined : end);
}

const one = (name: string, property: Record<string, unknown>, required = false): FormSchema =>
  ({ type: 'object', properties: { [name]: property }, ...(required ? { required: [name] } : {}) }) as FormSchema;

describe('a cancelled prompt shows nothing the person did not choose', () => {
  it.each([
    [
      'text with a default',
      one('ticket', { type: 'string', title: 'Release ticket', default: 'REL-1000' }),
      [],
      ['REL-1000'],
    ],
    [
      'email with its example',
      one('to', { type: 'string', title: 'Notify', format: 'email' }),
      [],
      ['name@example.com'],
    ],
    [
      'uri with a default',
      one('site', { type: 'string', title: 'Site', format: 'uri', default: 'https://a.example' }),
      [],
      ['https://'],
    ],
    [
      'date with a default',
      one('day', { type: 'string', title: 'Day', format: 'date', default: '2026-03-01' }),
      [],
      ['2026-03-01', 'YYYY'],
    ],
    [
      'date-time with its example',
      one('at', { type: 'string', title: 'At', format: 'date-time' }),
      [],
      ['2026-03-01T09:30:00Z'],
    ],
    ['number with a default', one('ratio', { type: 'number', title: 'Ratio', default: 0.75 }), [], ['0.75']],
    ['integer with a default', one('replicas', { type: 'integer', title: 'Replicas', default: 12 }), [], ['12']],
    ['boolean left at No', one('notify', { type: 'boolean', title: 'Email the team' }), [], ['No', 'Yes']],
    ['boolean moved to Yes', one('notify', { type: 'boolean', title: 'Email the team' }), [KEY.up], ['No', 'Yes']],
    [
      'select with an option highlighted',
      one('env', { type: 'string', title: 'Environment', enum: ['staging', 'production'] }, true),
      [KEY.down],
      ['staging', 'production'],
    ],
    [
      'multi-select with a default ticked and another highlighted',
      one('tags', {
        type: 'array',
        title: 'Tags',
        items: { type: 'string', enum: ['alpha', 'beta'] },
        default: ['alpha'],
      }),
      [KEY.down],
      ['alpha', 'beta'],
    ],
    ['a secret typed in', one('password', { type: 'string', title: 'Password' }), [...'hunter2'], ['hunter2']],
  ] as const)('%s', async (_kind, schema, keys, unchosen) => {
    const t = terminal(80);
    const answer = t.renderer.renderForm(formPrompt(schema, 'Set up the release.'), new AbortController().signal);
    await t.screen.nextPrompt();
    t.screen.press('a');
    await t.screen.nextPrompt();
    t.screen.press(...keys, KEY.esc);
    expect(await answer).toEqual({ action: 'cancel' });
    await t.screen.waitFor('Cancelled: the operation stops here.');
    const after = afterCancelledTitle(t.lines()).join('\n');
    for (const value of unchosen) expect(after).not.toContain(value);
    expect(t.raw()).toContain('\u001b[2m');
    expect(t.struck()).toBe('');
    expect(t.raw()).not.toContain('\u001b[9m');
  });

  it('at the first question (Answer / Decline / Cancel)', async () => {
    const t = terminal(80);
    const answer = t.renderer.renderForm(
      formPrompt(one('x', { type: 'string', title: 'X' })),
      new AbortController().signal,
    );
    await t.screen.nextPrompt();
    t.screen.press(KEY.esc);
    expect(await answer).toEqual({ action: 'cancel' });
    await t.screen.waitFor('Cancelled: the operation stops here.');
    expect(afterCancelledTitle(t.lines()).join('\n')).not.toMatch(/Answer|Decline/);
    expect(t.struck()).toBe('');
  });

  it('at the review step and in the list of answers to edit', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: { ticket: { type: 'string', title: 'Release ticket' }, note: { type: 'string', title: 'Note' } },
    };
    for (const edit of [false, true]) {
      const t = terminal(80);
      const answer = t.renderer.renderForm(formPrompt(schema), new AbortController().signal);
      await t.screen.nextPrompt();
      t.screen.press('a');
      await t.screen.nextPrompt();
      t.screen.press(...'REL-1', KEY.enter);
      await t.screen.nextPrompt();
      t.screen.press(KEY.enter);
      await t.screen.nextPrompt();
      if (edit) {
        t.screen.press('e');
        await t.screen.nextPrompt();
        t.screen.press(KEY.down);
      }
      t.screen.press(KEY.esc);
      expect(await answer).toEqual({ action: 'cancel' });
      await t.screen.waitFor('Cancelled: the operation stops here.');
      expect(afterCancelledTitle(t.lines()).join('\n')).not.toMatch(/Submit|Release ticket|Note/);
      expect(t.struck()).toBe('');
    }
  });

  it('at the URL consent', async () => {
    const t = terminal(80);
    const answer = t.renderer.renderUrl(urlPrompt('https://example.com/setup'), new AbortController().signal);
    await t.screen.nextPrompt();
    t.screen.press(KEY.esc);
    expect(await answer).toEqual({ action: 'cancel' });
    await t.screen.waitFor('Cancelled: the operation stops here.');
    expect(afterCancelledTitle(t.lines()).join('\n')).not.toMatch(/Decline|Open/);
    expect(t.struck()).toBe('');
  });
});

/** Every line a prompt or message draws starts with clack's gutter or one of its marks. */
const GUTTER = /^[│◆◇▲■●├└]/u;

function expectBordered(lines: string[], texts: string[]) {
  const screen = lines.join('\n');
  for (const line of lines) if (line !== '') expect(line, screen).toMatch(GUTTER);
  // Put back together without the gutter, each text reads whole: no word was cut.
  const joined = lines
    .map((l) => l.slice(3).trim())
    .join(' ')
    .replace(/ +/g, ' ');
  for (const text of texts) expect(joined, screen).toContain(text.replace(/\n/g, ' '));
}

const HELP =
  'Production deployments need a release ticket approved by the change advisory board before the maintenance window opens on Friday evening.';

describe.each([40, 80])('at %i columns, help and warnings keep the border and break between words', (columns) => {
  it.each([
    ['text', 'release', { type: 'string' }],
    ['date', 'release', { type: 'string', format: 'date' }],
    ['number', 'release', { type: 'number' }],
    ['boolean', 'release', { type: 'boolean' }],
    ['select', 'release', { type: 'string', enum: ['staging', 'production'] }],
    ['multi-select', 'release', { type: 'array', items: { type: 'string', enum: ['alpha', 'beta'] } }],
    ['secret', 'api_key', { type: 'string' }],
  ] as const)('the help of a %s field', async (_kind, name, property) => {
    const t = terminal(columns);
    const schema = one(name, { ...property, title: 'Release', description: `${HELP}\nAsk in #deploys.` });
    const answer = t.renderer.renderForm(formPrompt(schema, 'Set up the release.'), new AbortController().signal);
    await t.screen.nextPrompt();
    t.screen.press('a');
    await t.screen.nextPrompt();
    const lines = t.lines();
    if (name === 'api_key') expect(lines.join('\n')).toContain('WARNING: this form asks for a secret');
    expectBordered(lines, [HELP, 'Ask in #deploys.']);
    // A line of its own in the description stays a line of its own.
    expect(lines).toContain('│  Ask in #deploys.');
    t.screen.press(KEY.esc);
    await answer;
  });

  it('the URL consent’s warnings', async () => {
    const t = terminal(columns);
    const prompt = urlPrompt('http://paypal.com:pw@xn--pypal-4ve.com/login?token=abc');
    const answer = t.renderer.renderUrl(prompt, new AbortController().signal);
    await t.screen.nextPrompt();
    expect(prompt.warnings.length).toBeGreaterThan(2);
    expectBordered(
      t.lines(),
      prompt.warnings.map((w) => `Careful: ${w.message}`),
    );
    t.screen.press('d');
    await answer;
  });

  it('the warnings about a form’s findings and an unticked confirmation', async () => {
    const t = terminal(columns);
    const schema = one('confirmed', { type: 'boolean', title: 'I confirm the release', default: true });
    const answer = t.renderer.renderForm(formPrompt(schema), new AbortController().signal);
    const first = formPrompt(schema).findings.map((f) => `${f.rule} ${f.message}`);
    await t.screen.nextPrompt();
    expectBordered(t.lines(), ['This form breaks Elicitkit rules:', ...first]);
    t.screen.press('a');
    await t.screen.nextPrompt();
    t.screen.press(KEY.enter);
    await t.screen.nextPrompt();
    t.screen.press('s');
    await t.screen.nextPrompt();
    expectBordered(t.lines(), [
      'Not sent yet: a confirmation is not answered Yes ("I confirm the release"), and the server refuses the request without it.',
    ]);
    t.screen.press('d');
    expect(await answer).toEqual({ action: 'decline' });
    await t.screen.waitFor('Declined: nothing was shared.');
    expectBordered(t.lines(), ['Declined: nothing was shared.']);
  });
});

describe('a long list', () => {
  it('scrolls within the terminal’s rows, keeping the highlighted option in view', async () => {
    const t = terminal(40, 24);
    const names = Array.from({ length: 30 }, (_, i) => `region-${String(i + 1).padStart(2, '0')}`);
    const schema = one('region', { type: 'string', title: 'Region', enum: names }, true);
    const answer = t.renderer.renderForm(formPrompt(schema, 'Where?'), new AbortController().signal);
    await t.screen.nextPrompt();
    t.screen.press('a');
    const first = await t.screen.nextPrompt();
    expect(first).toContain('region-01');
    expect(first).not.toContain('region-30');
    t.screen.press(...Array<string>(20).fill(KEY.down));
    await t.screen.waitFor('● region-21');
    const lines = t.lines();
    const frame = lines.slice(lines.findLastIndex((l) => l.startsWith('◆')));
    expect(frame.length).toBeLessThan(24);
    expect(frame).toContain('│  ...');
    expect(frame.join('\n')).not.toContain('region-01');
    t.screen.press(KEY.enter);
    await t.screen.nextPrompt();
    t.screen.press('s');
    expect(await answer).toEqual({ action: 'accept', content: { region: 'region-21' } });
  });
});
