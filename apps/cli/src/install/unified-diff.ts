import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';

/** Lines of unchanged text shown around each change, as `diff -u` and git show (jsdiff's default). */
const CONTEXT = 4;
/**
 * Unchanged lines kept around the part that differs, more than the context shown: where a text
 * repeats lines, a diff may place a change a few lines off from where the texts first and last
 * differ, and the context it shows is then still all there.
 */
const MARGIN = 4 * CONTEXT;

/**
 * What a plan would change in `file`, as a unified diff, line by line; `before` is `undefined`
 * for a file that does not exist yet, shown as `/dev/null` the way git does.
 *
 * An edit changes a few lines of a file that may be tens of megabytes (~/.claude.json, Claude
 * Code's history), so only the lines between the first and the last that differ are diffed, with
 * `MARGIN` unchanged lines kept on each side, and the hunks then moved to their place in the
 * whole file: diffing the whole of a 54 MB file took 7 s and 730 MB to print 15 lines.
 */
export function unifiedDiff(file: string, before: string | undefined, after: string): string[] {
  const from = before === undefined ? '/dev/null' : file;
  const { skipped, before: old, after: changed } = middle(before ?? '', after, MARGIN);
  const patch = structuredPatch(from, file, old, changed, '', '', { context: CONTEXT });
  for (const hunk of patch.hunks) {
    hunk.oldStart += skipped;
    hunk.newStart += skipped;
  }
  return formatPatch(patch, FILE_HEADERS_ONLY).replace(/\n$/, '').split('\n');
}

/**
 * `before` and `after` without the whole lines they share at the start and at the end, less
 * `keep` of those lines on each side (the context a diff shows); `skipped`, how many lines were
 * taken from the start.
 */
export function middle(
  before: string,
  after: string,
  keep: number,
): { skipped: number; before: string; after: string } {
  const shortest = Math.min(before.length, after.length);
  let same = 0;
  while (same < shortest && before.charCodeAt(same) === after.charCodeAt(same)) same++;
  // Back to the start of the line the first difference is on (whole lines only), then `keep` lines more.
  // (`lastIndexOf` reads a negative position as 0: the first line is asked about only from 1 on.)
  let start = same === 0 ? 0 : before.lastIndexOf('\n', same - 1) + 1;
  for (let i = 0; i < keep && start > 0; i++) start = start === 1 ? 0 : before.lastIndexOf('\n', start - 2) + 1;
  let skipped = 0;
  for (let at = before.indexOf('\n'); at !== -1 && at < start; at = before.indexOf('\n', at + 1)) skipped++;
  // The same from the end, never into what the start took.
  let tail = 0;
  const room = shortest - start;
  while (tail < room && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail))
    tail++;
  // Forward past the first newline the shared end holds, so that what is cut begins a line in both
  // texts, then `keep` lines more.
  let end = before.length - tail;
  for (let i = 0; i <= keep && end < before.length; i++) {
    const next = before.indexOf('\n', end);
    end = next === -1 ? before.length : next + 1;
  }
  const cut = before.length - end;
  return { skipped, before: before.slice(start, end), after: after.slice(start, after.length - cut) };
}
