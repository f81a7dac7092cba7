/**
 * Where a command writes, one line per call: `out` for what it produces (stdout, what `--json`
 * and pipes read), `err` for what it says to the person (stderr). Tests pass their own.
 *
 * @example
 * const lines: string[] = [];
 * const code = await main(['tools', 'opsdesk'], { out: (line) => lines.push(line), err: console.error });
 */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}
