import type { JsonValue } from './clients.js';

/** How a file is laid out, so new text looks like the text around it. */
export interface JsonStyle {
  /** One level of indentation: spaces or a tab. */
  unit: string;
  eol: '\n' | '\r\n';
}

/** What new files get: two spaces and `\n`. */
export const DEFAULT_STYLE: JsonStyle = { unit: '  ', eol: '\n' };

/**
 * Reads the indentation unit and line ending of an existing file. The unit is the indentation of the
 * first property of the root object (one level deep by definition), not the smallest indent in the
 * file, which a `/* … *\/` comment's ` *` lines would skew.
 * @example detectStyle('{\r\n\t"a": 1\r\n}', 3) // { unit: '\t', eol: '\r\n' }
 */
export function detectStyle(text: string, firstPropertyOffset: number | undefined): JsonStyle {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (firstPropertyOffset === undefined || !startsLine(text, firstPropertyOffset)) return { ...DEFAULT_STYLE, eol };
  const unit = lineIndent(text, firstPropertyOffset);
  return { unit: unit === '' ? DEFAULT_STYLE.unit : unit, eol };
}

/** The leading whitespace of the line that holds `offset`. */
export function lineIndent(text: string, offset: number): string {
  const start = lineStart(text, offset);
  return /^[ \t]*/.exec(text.slice(start, offset))?.[0] ?? '';
}

/** Whether only whitespace precedes `offset` on its line. */
export function startsLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStart(text, offset), offset));
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/**
 * A value spread over lines, every line after the first starting with `indent`.
 * @example pretty({ a: [1] }, '  ', DEFAULT_STYLE) // '{\n    "a": [\n      1\n    ]\n  }'
 */
export function pretty(value: JsonValue, indent: string, style: JsonStyle): string {
  return JSON.stringify(value, null, style.unit).replaceAll('\n', style.eol + indent);
}

/**
 * A value on one line, spaced the way people write compact JSON by hand.
 * @example compact({ command: 'node', args: ['a.js'] }) // '{"command": "node", "args": ["a.js"]}'
 */
export function compact(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(compact).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${compact(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}
