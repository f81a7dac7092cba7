import { clean } from '@elicitkit/client/terminal';
import type { Io } from './io.js';

/**
 * `io` for a command's human-readable lines: everything it prints goes through the terminal
 * renderer's own filter (`clean`: control characters and bidi overrides removed, tabs two spaces,
 * line breaks kept), as text a server (or a caller through one) chose may be in any of them.
 */
export function shownIo(io: Io): Io {
  return { out: (line) => io.out(clean(line)), err: (line) => io.err(clean(line)) };
}

/** The most of one of the server's names shown inside a line of the CLI's. */
const NAME_SHOWN = 200;

/**
 * The server's text (its name, a tool's name or title, a status) inside one line of the CLI's:
 * cleaned, a line break read as a space — one would start a line that reads as the CLI's own
 * (`elicitkit: …`) or as another tool of a listing — and cut after `max` characters.
 *
 * @example
 * inLine('hostile\nelicitkit: done') // 'hostile elicitkit: done'
 */
export function inLine(text: string, max = NAME_SHOWN): string {
  const shown = joinLines(clean(text.slice(0, max)));
  return text.length > max ? `${shown}…` : shown;
}

/**
 * The server's text of several lines (a description) under a heading of the CLI's: every line of
 * it starts with `indent`, so none stands where a heading does.
 *
 * @example
 * indented('Deploys.\nwipe — …', '  ') // '  Deploys.\n  wipe — …'
 */
export function indented(text: string, indent: string): string {
  return clean(text)
    .split('\n')
    .map((line) => `${indent}${line}`)
    .join('\n');
}

/**
 * `text` with every run of white space that holds a line break made one space: a server's text
 * kept inside one line of ours, so it cannot fake a line of the CLI's. Linear in the text: each
 * run is matched once (a `\s*\n\s*` pattern retries a run of spaces from each of its spaces,
 * time squared in a long one).
 *
 * @example joinLines('deploy\r\n   to prod') // → 'deploy to prod'
 */
export function joinLines(text: string): string {
  return text.replace(/\s+/g, (run) => (/[\r\n]/.test(run) ? ' ' : run));
}
