import { clean } from '@elicitkit/client/terminal';

/** Where a progress line is drawn: a terminal's stderr (anything else gets nothing). */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/**
 * A one-line counter of doctor's calls on a terminal — `doctor: 23 calls · deploy_service × 2026-07-28 form` —
 * drawn over itself, at most ten times a second, and wiped when done. Silent when the stream is
 * not a terminal (CI logs, a pipe): nothing is added to what a script reads.
 *
 * @example
 * const progress = progressLine(process.stderr);
 * await runDoctor(endpoint, { onCall: progress.call });
 * progress.done();
 */
export function progressLine(
  stream: ProgressStream,
  now: () => number = Date.now,
): { call(c: { tool: string; profile: string }): void; done(): void } {
  if (!stream.isTTY) return { call: () => {}, done: () => {} };
  let calls = 0;
  let drawn = Number.NEGATIVE_INFINITY;
  let shown = false;
  return {
    call({ tool, profile }) {
      calls++;
      if (now() - drawn < 100) return;
      drawn = now();
      // The tool's name is the server's: drawn without its control sequences or line breaks.
      const line = `doctor: ${calls} call${calls === 1 ? '' : 's'} · ${oneLine(tool)} × ${oneLine(profile)}`;
      const width = Math.max(20, (stream.columns ?? 80) - 1);
      stream.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
      shown = true;
    },
    done() {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
}

/** Server text on the progress line: no control sequence, no line break. */
function oneLine(text: string): string {
  return clean(text).replace(/\n/g, ' ');
}
