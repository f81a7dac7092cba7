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
