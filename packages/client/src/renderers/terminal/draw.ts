import type { Writable } from 'node:stream';
import { styleText } from 'node:util';
import type { State } from '@clack/core';
import { log, S_BAR, S_BAR_END, S_STEP_ACTIVE, S_STEP_CANCEL, S_STEP_ERROR, S_STEP_SUBMIT } from '@clack/prompts';
import { clean } from './format.js';
import { columnsOf, widthOf, wrapText } from './wrap.js';

type Colour = 'cyan' | 'dim' | 'yellow' | 'green' | 'red';

/** The mark before a prompt's message, and the colour of its gutter, in each state. */
const MARKS = {
  initial: ['cyan', S_STEP_ACTIVE],
  active: ['cyan', S_STEP_ACTIVE],
  validating: ['dim', S_STEP_ACTIVE],
  error: ['yellow', S_STEP_ERROR],
  submit: ['green', S_STEP_SUBMIT],
  cancel: ['red', S_STEP_CANCEL],
} as const satisfies Record<State, readonly [Colour, string]>;

/** The gutter and the mark are three columns wide, as clack draws them. */
const GUTTER_WIDTH = 3;

/** `lines` behind the gutter, drawn in `colour`. */
function guttered(lines: string[], colour: Colour | 'gray'): string[] {
  return lines.map((line) => `${styleText(colour, S_BAR)}  ${line}`);
}

/** One option of a list: its mark (radio, checkbox, key) and its text. */
export interface Row {
  mark: string;
  text: string;
}

/** What a prompt draws for its state; the frame around it is the same for every prompt. */
export interface Parts {
  /** While the prompt waits: the line being typed or toggled, drawn as it is. */
  input?: string;
  /** Or the options, each a mark and its text, which lines up after the mark when it wraps. */
  options?: { rows: Row[]; cursor: number };
  /** Key hints under the input or options. */
  footer?: string;
  /** The answer the person gave, shown once they submit it. */
  answer: string;
}

/**
 * The lines of a prompt's message: its mark, then each line of the message behind the gutter,
 * broken between words to the terminal's width.
 */
function titleLines(state: State, message: string, width: number): string[] {
  const [colour, mark] = MARKS[state];
  const [first = '', ...rest] = wrapText(message, width);
  return [styleText('gray', S_BAR), `${styleText(colour, mark)}  ${first}`, ...guttered(rest, colour)];
}

/**
 * A prompt's whole frame. A cancelled prompt shows only that it was cancelled: the value under the
 * cursor, a default or an example was never the person's answer, so it is never shown as one.
 */
export function frame(
  prompt: { state: State; error: string },
  message: string,
  output: Writable,
  parts: Parts,
): string {
  const width = columnsOf(output) - GUTTER_WIDTH;
  // Redrawn on every key press: the server's text (a field's title and help) is cut to what the
  // screen holds before it is wrapped, never wrapped whole however long.
  const screenful = rowsOf(output) * width;
  const title = titleLines(prompt.state, cut(message, screenful), width);
  switch (prompt.state) {
    case 'cancel':
      return [...title, ...guttered([styleText('dim', 'cancelled')], 'gray')].join('\n');
    case 'submit': {
      const answer = parts.answer === '' ? [] : guttered(wrapText(styleText('dim', parts.answer), width), 'gray');
      return [...title, ...(answer.length > 0 ? answer : [styleText('gray', S_BAR)])].join('\n');
    }
    default: {
      const error = prompt.state === 'error';
      const colour = error ? 'yellow' : 'cyan';
      const hints = parts.footer ? wrapText(parts.footer, width) : [];
      // Validation messages may quote server text (a field's title): never drawn raw.
      const below = error ? wrapText(styleText('yellow', clean(prompt.error)), width) : hints;
      // The end line, and the line the cursor waits on below it, take a row each.
      const room = rowsOf(output) - title.length - below.length - 2;
      const body = parts.options ? windowed(parts.options, width, room) : [parts.input ?? ''];
      return `${[...title, ...guttered([...body, ...below], colour), styleText(colour, S_BAR_END)].join('\n')}\n`;
    }
  }
}

/** Rows the terminal has, or clack's 20 when the stream is not a terminal. */
function rowsOf(output: Writable): number {
  const rows = (output as Partial<{ rows: unknown }>).rows;
  return typeof rows === 'number' && rows > 0 ? rows : 20;
}

/**
 * The options that fit in `room` rows around the cursor, with a dim "..." where more are hidden,
 * so a long list scrolls instead of running off the screen. At least five rows are always shown.
 * Only the options it may show are wrapped, each cut to what could fit on the screen: this runs on
 * every key press, and wrapping a server's whole list (1,000 options, or one of megabytes) there
 * held each arrow key for as long.
 */
function windowed({ rows, cursor }: { rows: Row[]; cursor: number }, width: number, room: number): string[] {
  const limit = Math.max(room, 5) - 2;
  const wrapped = new Map<number, string[]>();
  const block = (index: number): string[] | undefined => {
    const row = rows[index];
    if (!row) return undefined;
    let lines = wrapped.get(index);
    if (!lines) {
      // More than the screen holds is never shown: a longer text is cut there.
      const text = cut(`${row.mark} ${row.text}`, (limit + 2) * width);
      lines = wrapText(text, width, widthOf(row.mark) + 1);
      wrapped.set(index, lines);
    }
    return lines;
  };
  const all: string[] = [];
  for (let index = 0; index < rows.length && all.length <= room; index++) all.push(...(block(index) ?? []));
  if (all.length <= room) return all;
  let from = Math.min(Math.max(cursor, 0), rows.length - 1);
  let to = from + 1;
  let used = block(from)?.length ?? 0;
  for (let grew = true; grew; ) {
    grew = false;
    const after = block(to)?.length;
    if (after !== undefined && used + after <= limit) {
      used += after;
      to++;
      grew = true;
    }
    const before = block(from - 1)?.length;
    if (before !== undefined && used + before <= limit) {
      used += before;
      from--;
      grew = true;
    }
  }
  const more = styleText('dim', '...');
  const shown = Array.from({ length: to - from }, (_, i) => block(from + i) ?? []).flat();
  return [...(from > 0 ? [more] : []), ...shown, ...(to < rows.length ? [more] : [])];
}

/** `text` cut after `length` characters, with "…", never inside a style sequence. */
function cut(text: string, length: number): string {
  if (text.length <= length) return text;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a style sequence cut in half is what it drops.
  return `${text.slice(0, length).replace(/\u001b\[[0-9;]*$/, '')}…`;
}

export type Tone = 'info' | 'success' | 'step' | 'warn' | 'error';

/**
 * A message between prompts (a warning, an error, how the question ended), broken between words
 * to the terminal's width so every line stays behind clack's gutter.
 */
export function say(output: Writable, tone: Tone, text: string): void {
  log[tone](wrapText(text, columnsOf(output) - GUTTER_WIDTH).join('\n'), { output });
}
