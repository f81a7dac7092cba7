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
