/**
 * A fake terminal for driving the terminal renderer with real keystrokes: an input stream the
 * renderer reads keys from, and an output stream that records everything it draws. Nothing here
 * sleeps: waits resolve on the renderer's own output, with a deadline that fails loudly.
 */
import { PassThrough, Writable } from 'node:stream';

export const KEY = {
  up: '\x1b[A',
  down: '\x1b[B',
  enter: '\r',
  space: ' ',
  esc: '\x1b',
  ctrlC: '\x03',
  /** Ctrl+U: clears the line (drops a pre-filled value). */
  clearLine: '\x15',
} as const;

/** clack writes "hide cursor" exactly once when a prompt starts listening for keys. */
const PROMPT_START = '\x1b[?25l';
/** Not a wait: the point past which a missing prompt is reported as a failure, with the screen. */
const DEADLINE_MS = 10_000;

function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escape sequences is the point.
  return text.replace(/\x1b\][^\x07]*\x07/g, '').replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '');
}

export interface Screen {
  input: PassThrough;
  output: Writable;
  /** Everything drawn so far, without escape sequences. */
  text(): string;
  /** Everything drawn so far, exactly as written, escape sequences included. */
  raw(): string;
  /** Waits for the next prompt to start listening, and returns the screen text drawn since the last one. */
  nextPrompt(): Promise<string>;
  /** Waits until the screen shows `pattern` in what was drawn since the last key press. */
  waitFor(pattern: string | RegExp): Promise<void>;
  press(...keys: string[]): void;
}

export function createScreen(): Screen {
  let raw = '';
  let seenPrompts = 0;
  let promptOffset = 0;
  let pressOffset = 0;
  let waiters: (() => void)[] = [];
  const output = new Writable({
    write(chunk, _encoding, done) {
      raw += String(chunk);
      for (const wake of waiters) wake();
      done();
    },
  });
  Object.assign(output, { columns: 120, rows: 40 });
  const input = new PassThrough();

  function until<T>(what: string, check: () => T | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const attempt = () => {
        const found = check();
        if (found === undefined) return;
        clearTimeout(timer);
        waiters = waiters.filter((w) => w !== attempt);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters = waiters.filter((w) => w !== attempt);
        reject(new Error(`Timed out waiting for ${what}. Screen:\n${stripAnsi(raw).slice(-3000)}`));
      }, DEADLINE_MS);
      waiters.push(attempt);
      attempt();
    });
  }

  return {
    input,
    output,
    text: () => stripAnsi(raw),
    raw: () => raw,
    async nextPrompt() {
      const start = await until('the next prompt', () => {
        let index = -1;
        for (let i = 0; i <= seenPrompts; i++) {
          index = raw.indexOf(PROMPT_START, index + 1);
          if (index === -1) return undefined;
        }
        return index;
      });
      const previous = promptOffset;
      seenPrompts++;
      promptOffset = start;
      // The prompt's first frame is written right after the marker, in the same render call.
      await new Promise((resolve) => setImmediate(resolve));
      return stripAnsi(raw.slice(previous));
    },
    async waitFor(pattern) {
      await until(`"${String(pattern)}"`, () => {
        const shown = stripAnsi(raw.slice(pressOffset));
        return (typeof pattern === 'string' ? shown.includes(pattern) : pattern.test(shown)) ? true : undefined;
      });
    },
    press(...keys) {
      pressOffset = raw.length;
      for (const key of keys) input.write(key);
    },
  };
}
