import type { Writable } from 'node:stream';

/** What a stream that is not a terminal is taken to be, as clack takes it. */
const DEFAULT_COLUMNS = 80;

/** The width to draw for: the output terminal's, or 80 columns when it is not a terminal. */
export function columnsOf(output: Writable): number {
  const columns = (output as Partial<{ columns: unknown }>).columns;
  return typeof columns === 'number' && columns > 0 ? columns : DEFAULT_COLUMNS;
}

/** East Asian wide and fullwidth blocks: two columns each. */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x20000, 0x3fffd],
];

/** Columns one code point takes: none for marks and joiners, two for wide scripts and emoji. */
function cellWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if (/\p{Mark}|\p{Default_Ignorable_Code_Point}/u.test(char)) return 0;
  if (/\p{Emoji_Presentation}/u.test(char)) return 2;
  return WIDE.some(([from, to]) => code >= from && code <= to) ? 2 : 1;
}

/** A code point, or a colour/style sequence (zero width, never dropped). */
interface Atom {
  text: string;
  width: number;
  style: boolean;
}

/** A word, or the spaces between two words, with the style sequences that come before it. */
interface Run {
  atoms: Atom[];
  width: number;
  space: boolean;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: style sequences are what it finds.
const ATOM = /\u001b\[[0-9;]*m|[\s\S]/gu;

function runsOf(line: string): Run[] {
  const runs: Run[] = [];
  let styles: Atom[] = [];
  for (const [text] of line.matchAll(ATOM)) {
    if (text.length > 1 && text.startsWith('\u001b')) {
      styles.push({ text, width: 0, style: true });
      continue;
    }
    const atom = { text, width: cellWidth(text), style: false };
    const space = text === ' ';
    const last = runs.at(-1);
    if (last && last.space === space) {
      last.atoms.push(...styles, atom);
      last.width += atom.width;
    } else runs.push({ atoms: [...styles, atom], width: atom.width, space });
    styles = [];
  }
  const last = runs.at(-1);
  if (last) last.atoms.push(...styles);
  else if (styles.length > 0) runs.push({ atoms: styles, width: 0, space: false });
  return runs;
}

/**
 * One line broken between words into lines of at most `width` columns, the lines after the first
 * `hang` columns narrower. Spaces at a break go (their styles stay); leading spaces, an indent,
 * stay; a word longer than a line is cut.
 */
function breakLine(line: string, width: number, hang: number): Atom[][] {
  const lines: Atom[][] = [];
  let current: Atom[] = [];
  let used = 0;
  const room = () => (lines.length === 0 ? width : Math.max(1, width - hang));
  const runs = runsOf(line);
  runs.forEach((run, index) => {
    if (run.space) {
      const next = runs[index + 1];
      const leading = lines.length === 0 && used === 0;
      if (leading || (next && used + run.width + next.width <= room())) {
        current.push(...run.atoms);
        used += run.width;
      } else if (next) {
        lines.push(current);
        current = run.atoms.filter((a) => a.style);
        used = 0;
      } else current.push(...run.atoms.filter((a) => a.style));
      return;
    }
    if (used > 0 && used + run.width > room()) {
      lines.push(current);
      current = [];
      used = 0;
    }
    for (const atom of run.atoms) {
      // Only a word longer than a whole line gets here with no room: it is cut where the line ends.
      if (used > 0 && used + atom.width > room()) {
        lines.push(current);
        current = [];
        used = 0;
      }
      current.push(atom);
      used += atom.width;
    }
  });
  lines.push(current);
  return lines;
}

/** The style sequences still in force after `sgr`, following what a terminal does with them. */
function follow(open: string[], sgr: string): string[] {
  const code = Number(sgr.slice(2, -1).split(';')[0] || 0);
  if (code === 0) return [];
  if (!CLOSERS.has(code)) return [...open, sgr];
  return open.filter((o) => closerOf(Number(o.slice(2, -1).split(';')[0])) !== code);
}

const CLOSERS = new Set([22, 23, 24, 25, 27, 28, 29, 39, 49, 55]);

function closerOf(code: number): number {
  if (code === 1 || code === 2) return 22;
  if ((code >= 30 && code <= 38) || (code >= 90 && code <= 97)) return 39;
  if ((code >= 40 && code <= 48) || (code >= 100 && code <= 107)) return 49;
  if (code === 5 || code === 6) return 25;
  if (code === 53) return 55;
  return code + 20;
}

/**
 * Text broken into lines of at most `width` columns, between words: a word is cut only when it is
 * longer than a whole line. Line breaks in the text stay. A line that wraps goes on `hang` columns
 * in (so an option's text lines up after its mark). Colours and styles are closed at the end of a
 * line and opened again on the next, so a gutter drawn before each line keeps its own colour.
 *
 * @example
 * wrapText('Production needs a release ticket.', 16) // ['Production needs', 'a release', 'ticket.']
 */
export function wrapText(text: string, width: number, hang = 0): string[] {
  const room = Math.max(1, Math.floor(width));
  const indent = ' '.repeat(Math.min(Math.max(0, hang), room - 1));
  let open: string[] = [];
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    for (const [index, atoms] of breakLine(line, room, indent.length).entries()) {
      let drawn = (index > 0 ? indent : '') + open.join('');
      for (const atom of atoms) {
        drawn += atom.text;
        if (atom.style) open = follow(open, atom.text);
      }
      lines.push(open.length > 0 ? `${drawn}\u001b[0m` : drawn);
    }
  }
  return lines;
}

/** Columns `text` takes in a terminal, without its style sequences. */
export function widthOf(text: string): number {
  let width = 0;
  for (const [atom] of text.matchAll(ATOM))
    if (atom.length === 1 || !atom.startsWith('\u001b')) width += cellWidth(atom);
  return width;
}
