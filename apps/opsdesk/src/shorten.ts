/**
 * Control characters, the bidi controls that could make text read differently than it runs (the
 * Arabic letter mark among them), and the invisible ones that make a name look like another (a
 * zero-width space or joiner, a word joiner, a byte-order mark, a soft hyphen).
 */
const UNSAFE_CHARS =
  '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';
const UNSAFE = new RegExp(`[${UNSAFE_CHARS}]`, 'g');

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
  return cut(flat, max);
}

/** `text` at most `max` characters (code points): past it, its start and end with ` … ` between (the middle is what a person can spare). */
function cut(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const head = Math.ceil((max - 3) * 0.65);
  const tail = max - 3 - head;
  return `${chars.slice(0, head).join('')} … ${chars.slice(chars.length - tail).join('')}`;
}

/** How much text a person is shown whole in a question (`shownWhole`). */
export interface WholeBounds {
  /** At most this many characters (code points). */
  chars: number;
  /** At most this many lines. */
  lines: number;
}

/**
 * Characters shown as something other than what they are — `UNSAFE`, and the line and paragraph
 * separators some renderers break at — and `⟨`, which starts the notation they are shown in.
 */
const UNSEEN = new RegExp(`[${UNSAFE_CHARS}\\u2028\\u2029\\u27e8]`, 'g');

/**
 * `text` as a person is to read it in a question, whole and as it is — where `oneLine` folds and
 * shortens — or `long` when it is more than `bounds` (it is never cut: the middle of a statement
 * is where a clause can hide). Line breaks, runs of spaces and tabs stay. A character no one sees
 * as it is (a control, bidi or invisible one) is spelled out as its code point, `⟨U+202E⟩` (and a
 * `⟨` in the text as `⟨U+27E8⟩`, so the notation reads one way only); a lone carriage return, or a
 * line or paragraph separator, ends its line there too (a line a database may take as part of a
 * comment is shown as a line of its own: more seems to run than does, never less). Text of several
 * lines has each numbered, `1 | …`: none of its lines can pass for a line of the question itself,
 * nor for the end of the block it is shown in. `\r\n` is one line break; the whitespace around
 * the whole is dropped.
 *
 * @example
 * shownWhole('UPDATE t -- note\n SET a = 1', { chars: 2000, lines: 50 }) // → { text: '1 | UPDATE t -- note\n2 |  SET a = 1' }
 */
export function shownWhole(
  text: string,
  bounds: WholeBounds,
): { text: string } | { long: { chars: number; lines: number } } {
  const whole = text.replace(/\r\n/g, '\n').trim();
  const spelled = whole.replace(UNSEEN, (char) =>
    char === '\r' || char === '\u2028' || char === '\u2029' ? `${spell(char)}\n` : spell(char),
  );
  const lines = spelled.split('\n');
  const chars = [...whole].length;
  if (chars > bounds.chars || lines.length > bounds.lines) return { long: { chars, lines: lines.length } };
  if (lines.length === 1) return { text: spelled };
  const width = String(lines.length).length;
  return { text: lines.map((line, i) => `${String(i + 1).padStart(width)} | ${line}`).join('\n') };
}

/**
 * What `spelledLine` spells out: `UNSEEN`, tabs and line breaks, and every other character not
 * seen as itself — any control, format (the tag characters U+E0000–E007F among them), private-use,
 * unassigned or lone surrogate one, anything Unicode says to draw as nothing (a Hangul filler, a
 * combining grapheme joiner, a variation selector), and any space but U+0020 (a no-break space
 * reads as one).
 */
const SPELLED =
  /[\t\n\u27e8\u2028\u2029\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]|(?! )\p{Zs}/gu;
/** A combining mark: spelled out in a text not in NFC, whose letters would draw as another's that is. */
const MARK = /\p{M}/gu;

/**
 * `text` on one line, whole, no two texts alike: every character no one sees as it is — a control,
 * bidi or invisible one, a tab, a line break, a space other than U+0020 (`SPELLED`) — spelled out as
 * its code point (`⟨U+000A⟩`, and `⟨` as `⟨U+27E8⟩`), nothing folded; in a text not in NFC its
 * combining marks too (`cafe⟨U+0301⟩.md` is another file than `café.md`). For a name the person acts on without typing it (a file
 * sync_file resolves): `oneLine` shows `a  b` and `a b` alike, and the middle of a long one not at
 * all. With `max` (a line of a preview, such as a diff's), cut past it as `oneLine` cuts.
 *
 * @example
 * spelledLine('notes/a\nb.md') // → 'notes/a⟨U+000A⟩b.md'
 */
export function spelledLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const spelled = cut(text, max).replace(SPELLED, spell);
  // `café` written as `e` and U+0301 draws as `café` in one code point: both name files of their own.
  return text === text.normalize('NFC') ? spelled : spelled.replace(MARK, spell);
}

/** `text` in a Markdown code block of its own (a monospace font, lines as they are); no line of it may start with ``` (`shownWhole` numbers them). */
export function codeBlock(text: string): string {
  return `\`\`\`\n${text}\n\`\`\``;
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

/** A character no one sees as it is, spelled out: `⟨U+200B⟩`. */
function spell(char: string): string {
  return `⟨${codePoint(char)}⟩`;
}

/** A character's code point as Unicode writes it: `U+200B`. */
export function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}
