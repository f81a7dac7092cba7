import { styleText } from 'node:util';
import {
  type CANCEL_SYMBOL,
  ConfirmPrompt,
  MultiSelectPrompt,
  PasswordPrompt,
  SelectKeyPrompt,
  SelectPrompt,
  TextPrompt,
} from '@clack/core';
import {
  MULTISELECT_INSTRUCTIONS,
  S_CHECKBOX_ACTIVE,
  S_CHECKBOX_INACTIVE,
  S_CHECKBOX_SELECTED,
  S_PASSWORD_MASK,
  S_RADIO_ACTIVE,
  S_RADIO_INACTIVE,
  SELECT_INSTRUCTIONS,
} from '@clack/prompts';
import { frame } from './draw.js';
import { clean } from './format.js';
import type { Io } from './io.js';

/*
 * The prompts the terminal renderer asks with: clack's core holds each one's state and keys, and
 * draw.ts draws them, so every message and option keeps the gutter when it wraps and a cancelled
 * prompt never shows a value the person did not choose.
 */

/** One choice of a list. */
export interface Choice<V> {
  value: V;
  label: string;
  hint?: string;
}

/** What the prompt shows first, in the question's streams. */
type Asked = Io & { message: string };

/** The answer, or clack's cancel symbol for Esc, Ctrl+C and a withdrawn question. */
type Answer<T> = Promise<T | typeof CANCEL_SYMBOL | undefined>;

const hinted = (label: string, hint: string | undefined) =>
  hint ? `${label} ${styleText('dim', `(${hint})`)}` : label;

/** One line of text; `placeholder` shows dimmed while the line is empty. */
export function typeText(
  ask: Asked & {
    initialValue?: string;
    placeholder?: string;
    validate: (raw: string | undefined) => string | undefined;
  },
): Answer<string> {
  const { message, output, placeholder } = ask;
  const empty = placeholder
    ? styleText('inverse', placeholder.slice(0, 1)) + styleText('dim', placeholder.slice(1))
    : styleText(['inverse', 'hidden'], '_');
  return new TextPrompt({
    ...streams(ask),
    ...(ask.initialValue === undefined ? {} : { initialValue: ask.initialValue }),
    validate: ask.validate,
    render() {
      return frame(this, message, output, {
        input: this.userInput ? withCursor(this.userInput, this.cursor) : empty,
        answer: clean(this.value ?? ''),
      });
    },
  }).prompt();
}

/**
 * The line being typed with the cursor on it, as clack draws it, but cleaned: a pre-filled value
 * came from the server, and a pasted one may carry escape sequences too.
 */
function withCursor(text: string, cursor: number): string {
  if (cursor >= text.length) return `${clean(text)}\u2588`;
  const at = clean(text.slice(cursor, cursor + 1)) || ' ';
  return `${clean(text.slice(0, cursor))}${styleText('inverse', at)}${clean(text.slice(cursor + 1))}`;
}

/** One line of text masked on screen. */
export function typeSecret(ask: Asked & { validate: (raw: string | undefined) => string | undefined }): Answer<string> {
  const { message, output } = ask;
  return new PasswordPrompt({
    ...streams(ask),
    mask: S_PASSWORD_MASK,
    validate: ask.validate,
    render() {
      return frame(this, message, output, { input: this.userInputWithCursor, answer: this.masked });
    },
  }).prompt();
}

/** Yes / No, moved with the arrows or answered with y and n. */
export function confirmYes(ask: Asked & { initialValue: boolean }): Answer<boolean> {
  const { message, output } = ask;
  const radio = (on: boolean, label: string) =>
    on ? `${styleText('green', S_RADIO_ACTIVE)} ${label}` : `${styleText('dim', `${S_RADIO_INACTIVE} ${label}`)}`;
  return new ConfirmPrompt({
    ...streams(ask),
    active: 'Yes',
    inactive: 'No',
    initialValue: ask.initialValue,
    render() {
      const yes = this.value === true;
      return frame(this, message, output, {
        input: `${radio(yes, 'Yes')} ${styleText('dim', '/')} ${radio(!yes, 'No')}`,
        answer: yes ? 'Yes' : 'No',
      });
    },
  }).prompt();
}

/** One of a list, with the arrow keys. */
export function pickOne<V>(ask: Asked & { options: Choice<V>[]; initialValue?: V }): Answer<V> {
  const { message, output, options } = ask;
  return new SelectPrompt<Choice<V>>({
    ...streams(ask),
    options,
    ...(ask.initialValue === undefined ? {} : { initialValue: ask.initialValue }),
    render() {
      const rows = this.options.map((o, i) =>
        i === this.cursor
          ? { mark: styleText('green', S_RADIO_ACTIVE), text: hinted(o.label, o.hint) }
          : { mark: styleText('dim', S_RADIO_INACTIVE), text: styleText('dim', o.label) },
      );
      return frame(this, message, output, {
        options: { rows, cursor: this.cursor },
        footer: SELECT_INSTRUCTIONS.join(' • '),
        answer: this.options[this.cursor]?.label ?? '',
      });
    },
  }).prompt();
}

/** Any of a list: the arrows move, space ticks. */
export function pickMany<V>(ask: Asked & { options: Choice<V>[]; initialValues: V[] }): Answer<V[]> {
  const { message, output, options } = ask;
  return new MultiSelectPrompt<Choice<V>>({
    ...streams(ask),
    options,
    initialValues: ask.initialValues,
    required: false,
    render() {
      const ticked = this.value ?? [];
      const rows = this.options.map((o, i) => {
        const here = i === this.cursor;
        const mark = ticked.includes(o.value)
          ? styleText('green', S_CHECKBOX_SELECTED)
          : styleText(here ? 'cyan' : 'dim', here ? S_CHECKBOX_ACTIVE : S_CHECKBOX_INACTIVE);
        return { mark, text: here ? hinted(o.label, o.hint) : styleText('dim', o.label) };
      });
      const chosen = this.options.filter((o) => ticked.includes(o.value)).map((o) => o.label);
      return frame(this, message, output, {
        options: { rows, cursor: this.cursor },
        footer: MULTISELECT_INSTRUCTIONS.join(' • '),
        answer: chosen.length > 0 ? chosen.join(', ') : 'none',
      });
    },
  }).prompt();
}

/** One key picks; Enter picks the first. */
export function pressKey(ask: Asked & { options: Choice<string>[] }): Answer<string> {
  const { message, output, options } = ask;
  return new SelectKeyPrompt<Choice<string>>({
    ...streams(ask),
    options,
    render() {
      const rows = this.options.map((o, i) => ({
        mark: styleText(i === this.cursor ? ['bgCyan', 'gray'] : ['gray', 'bgWhite', 'inverse'], ` ${o.value} `),
        text: hinted(o.label, o.hint),
      }));
      // clack's selectKey submits `undefined` on Enter: the first option is what Enter picks.
      const picked = this.options.find((o) => o.value === this.value) ?? this.options[0];
      return frame(this, message, output, { options: { rows, cursor: this.cursor }, answer: picked?.label ?? '' });
    },
  }).prompt();
}

function streams({ input, output, signal }: Io): Io {
  return { input, output, signal };
}
