/**
 * Control characters, the bidi controls that could make text read differently than it runs (the
 * Arabic letter mark among them), and the invisible ones that make a name look like another (a
 * zero-width space or joiner, a word joiner, a byte-order mark, a soft hyphen).
 */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * Text fit for one line of a prompt: runs of whitespace and newlines become one space, other
 * control characters a visible `�`, and a long text keeps its start and end with `…` between
 * (the middle is what a person can spare; the verb and the WHERE clause usually are not).
 *
 * @example
 * oneLine('DELETE FROM orders\n  WHERE id = 1') // → 'DELETE FROM orders WHERE id = 1'
 */
export function oneLine(text: string, max = 240): string {
  // A byte-order mark counts as white space to JavaScript: marked before the spaces are folded.
  const flat = text
    .replace(/\uFEFF/g, '\uFFFD')
    .replace(/\s+/g, ' ')
    .replace(UNSAFE, '\uFFFD')
    .trim();
  const chars = [...flat];
  if (chars.length <= max) return flat;
  const head = Math.ceil((max - 3) * 0.65);
  const tail = max - 3 - head;
  return `${chars.slice(0, head).join('')} … ${chars.slice(chars.length - tail).join('')}`;
}

/**
 * `text` as a Markdown code span: fenced with one backtick more than its longest run of them, so
 * a name or a statement holding backticks still reads as one span (and the rule catalogue's EK11
 * reads it as quoted).
 *
 * @example
 * codeSpan('order_items') // → '`order_items`'
 * codeSpan('SELECT `a`') // → '`` SELECT `a` ``'
 */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || longest > 0 ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}
