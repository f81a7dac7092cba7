import { type Node, type NodeType, type ParseError, parseTree, visit } from 'jsonc-parser';

// Why not parseTree on the whole file: ~/.claude.json holds Claude Code's project history, tens of
// megabytes, and a tree of every value in it took seconds to build (most of it garbage collection)
// for edits that touch one object. The file is scanned once without a tree, and only the object
// the edits touch is parsed into one.

/** Deeper than any client config: the parser and the edits recurse per level, and would overflow the stack. */
const MAX_DEPTH = 512;
/** Why a file nested that deep is refused. */
export const TOO_DEEP = `its values nest deeper than ${MAX_DEPTH} levels, which no client config does`;

/**
 * Where `text` first opens an object or array deeper than `MAX_DEPTH`, outside strings and
 * comments; undefined when it never does. One pass, before anything that recurses reads it.
 * Strings and comments end where jsonc-parser's scanner ends them, or what the parser then reads
 * as brackets would go uncounted: a `//` comment at a CR (a lone CR is a line break to it), and
 * a string at its closing quote or, unclosed, at a CR or LF (a backslash takes the next
 * character, whatever it is).
 */
export function tooDeep(text: string): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"' && !lineBreak(text[i]); i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && !lineBreak(text[i])) i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === '{' || c === '[') {
      if (++depth > MAX_DEPTH) return i;
    } else if (c === '}' || c === ']') depth--;
  }
  return undefined;
}

/** A line break as jsonc-parser's scanner reads one. */
function lineBreak(c: string | undefined): boolean {
  return c === '\n' || c === '\r';
}

/** A node while it is read: {@link Node} with its fields still open. */
interface Draft {
  type: NodeType;
  value?: unknown;
  offset: number;
  length: number;
  colonOffset?: number;
  parent?: Draft;
  children?: Draft[];
}

/** A config file's text read in one scan (comments and trailing commas allowed). */
export interface ConfigTop {
  /**
   * The top-level value. An object's properties are whole (key, colon, offsets), but each value is
   * only its type, offset and length: {@link expand} parses the one needed.
   */
  root: Node | undefined;
  /** The first syntax error, as `parseTree` reports it. */
  error: ParseError | undefined;
  /** The text has a comment or a trailing comma, which plain JSON does not allow. */
  lenient: boolean;
}

/**
 * Scans `text` once: its first error, and its top-level value with the properties' outlines.
 * @example readTop('{"a": {"b": 1}}').root?.children?.[0]?.children?.[1] // { type: 'object', offset: 6, length: 8, … }
 */
export function readTop(text: string): ConfigTop {
  let root: Draft | undefined;
  let error: ParseError | undefined;
  let lenient = false;
  let afterComma = false;
  let depth = 0;
  let property: Draft | undefined;
  const value = (node: Draft) => {
    afterComma = false;
    if (depth === 0) root = node;
    else if (depth === 1 && property && root?.type === 'object') {
      node.parent = property;
      property.children?.push(node);
      if (node.length >= 0) property.length = node.offset + node.length - property.offset;
    }
  };
  const begin = (type: NodeType) => (offset: number) => {
    value({ type, offset, length: -1, ...(depth === 0 ? { children: [] } : {}) });
    depth++;
  };
  const end = (offset: number, length: number) => {
    if (afterComma) lenient = true;
    afterComma = false;
    depth--;
    const node = depth === 0 ? root : depth === 1 ? property?.children?.[1] : undefined;
    if (!node || (depth === 1 && root?.type !== 'object')) return;
    node.length = offset + length - node.offset;
    if (depth === 1 && property) property.length = offset + length - property.offset;
  };
  visit(
    text,
    {
      onObjectBegin: begin('object'),
      onArrayBegin: begin('array'),
      onObjectEnd: end,
      onArrayEnd: end,
      onObjectProperty: (name, offset, length) => {
        afterComma = false;
        if (depth !== 1 || root?.type !== 'object') return;
        property = { type: 'property', offset, length: -1, parent: root, children: [] };
        property.children?.push({ type: 'string', value: name, offset, length, parent: property });
        root.children?.push(property);
      },
      onLiteralValue: (literal: unknown, offset, length) =>
        value({ type: literalType(literal), value: literal, offset, length }),
      onSeparator: (separator, offset) => {
        if (separator === ',') afterComma = true;
        else if (depth === 1 && property) property.colonOffset = offset;
      },
      onComment: () => {
        lenient = true;
      },
      onError: (code, offset, length) => {
        error ??= { error: code, offset, length };
      },
    },
    { allowTrailingComma: true },
  );
  return { root, error, lenient };
}

function literalType(value: unknown): NodeType {
  if (value === null) return 'null';
  return typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? 'number' : 'string';
}

/**
 * The whole tree of the value that spans `offset`…`offset + length` of `text`, at its place in the
 * file (offsets count from the file's start) and under `parent`, with the errors of its own text.
 * @example expand(text, { offset: 6, length: 8 }).node // { type: 'object', children: [ … ] }
 */
export function expand(
  text: string,
  span: { offset: number; length: number; parent?: Node | undefined },
): { node: Node | undefined; errors: ParseError[] } {
  const errors: ParseError[] = [];
  const node = parseTree(text.slice(span.offset, span.offset + span.length), errors, { allowTrailingComma: true });
  if (node) move(node as Draft, span.offset);
  if (node && span.parent) (node as Draft).parent = span.parent as Draft;
  return { node, errors: errors.map((e) => ({ ...e, offset: e.offset + span.offset })) };
}

function move(node: Draft, by: number): void {
  node.offset += by;
  if (node.colonOffset !== undefined) node.colonOffset += by;
  for (const child of node.children ?? []) move(child, by);
}
