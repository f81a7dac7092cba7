import type { Io } from './io.js';

/**
 * Text a server (or a caller through one) chose, made fit for a terminal: control characters
 * (escape sequences that clear the screen, write the clipboard or overwrite a line) and bidi
 * overrides are removed, tabs become two spaces, line breaks stay. The terminal renderer does the
 * same to a question; this is for what the commands themselves print.
 *
 * @example shown('done\u001b[2J') // 'done[2J'
 */
export function shown(text: string): string {
  return (
    text
      .replace(/\t/g, '  ')
      .replace(/\r\n?/g, '\n')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
      .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
  );
}

/** `io` for a command's human-readable lines: everything it prints goes through `shown`. */
export function shownIo(io: Io): Io {
  return { out: (line) => io.out(shown(line)), err: (line) => io.err(shown(line)) };
}
