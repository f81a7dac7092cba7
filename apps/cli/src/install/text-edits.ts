import type { Edit, Node } from 'jsonc-parser';
import type { JsonValue } from './clients.js';
import { compact, type JsonStyle, lineIndent, pretty, startsLine } from './json-style.js';

// Why not jsonc-parser's `modify`: its formatting pass re-formats the whole line an insertion lands on,
// so `"projects": {"/a": {}}` before the insertion point comes out expanded over five lines. These edits
// only ever add text, or replace the one value being installed.

/** The rest of a property's line: an optional comma, then only comments up to the line break. */
const LINE_TAIL = /[ \t]*(,?)[ \t]*(?:\/\*(?:[^*\r\n]|\*(?!\/))*\*\/[ \t]*)*(?:\/\/[^\r\n]*)?(?=\r?\n)/y;

/**
 * Edits that add `"key": value` as the last property of `object`, in the object's own layout: one line
 * for an object written on one line, otherwise a new line at the indentation of its last property, after
 * that property's same-line comment, keeping a trailing comma if the file uses them.
 * @example applyEdits('{"a": 1}', insertProperty('{"a": 1}', parseTree('{"a": 1}')!, 'b', 2, DEFAULT_STYLE))
 * // '{"a": 1, "b": 2}'
 */
export function insertProperty(text: string, object: Node, key: string, value: JsonValue, style: JsonStyle): Edit[] {
  const open = object.offset;
  const outer = lineIndent(text, open);
  const last = object.children?.at(-1);
  if (!last) return fillEmpty(text, object, key, value, style);

  const end = last.offset + last.length;
  if (!spansLines(text, object))
    return [{ offset: end, length: 0, content: `, ${JSON.stringify(key)}: ${compact(value)}` }];

  const indent = startsLine(text, last.offset) ? lineIndent(text, last.offset) : outer + style.unit;
  const property = `${JSON.stringify(key)}: ${pretty(value, indent, style)}`;
  LINE_TAIL.lastIndex = end;
  const tail = LINE_TAIL.exec(text);
  if (!tail) return [{ offset: end, length: 0, content: `,${style.eol}${indent}${property}` }];
  const trailingComma = tail[1] === ',';
  // One edit re-emits the tail unchanged, so a same-line comment stays with the property it describes.
  const content = `${trailingComma ? '' : ','}${tail[0]}${style.eol}${indent}${property}${trailingComma ? ',' : ''}`;
  return [{ offset: end, length: tail[0].length, content }];
}

/**
 * The edit that replaces `property`'s value with `value`, laid out like its `container`.
 * @example replaceValue(text, serversNode, opsdeskPropertyNode, newEntry, style)
 */
export function replaceValue(
  text: string,
  container: Node,
  property: Node,
  value: JsonValue,
  style: JsonStyle,
): Edit[] {
  const old = property.children?.[1];
  if (!old) return [];
  const multiLine = spansLines(text, container);
  const indent = startsLine(text, property.offset)
    ? lineIndent(text, property.offset)
    : lineIndent(text, container.offset) + style.unit;
  return [
    { offset: old.offset, length: old.length, content: multiLine ? pretty(value, indent, style) : compact(value) },
  ];
}

/** An empty object opens up over lines, unless it sits inside an object written on one line. */
function fillEmpty(text: string, object: Node, key: string, value: JsonValue, style: JsonStyle): Edit[] {
  const open = object.offset;
  const inner = text.slice(open + 1, object.offset + object.length - 1);
  // Comments inside an otherwise empty object are kept, after the new property.
  const length = inner.trim() === '' ? inner.length : 0;
  const enclosing = object.parent?.parent;
  if (enclosing && !spansLines(text, enclosing))
    return [{ offset: open + 1, length, content: `${JSON.stringify(key)}: ${compact(value)}` }];
  const outer = lineIndent(text, open);
  const indent = outer + style.unit;
  const property = `${style.eol}${indent}${JSON.stringify(key)}: ${pretty(value, indent, style)}`;
  return [{ offset: open + 1, length, content: length === inner.length ? property + style.eol + outer : property }];
}

function spansLines(text: string, node: Node): boolean {
  return /[\r\n]/.test(text.slice(node.offset, node.offset + node.length));
}

/**
 * The edits that take `property` out of `object`, leaving every other byte where it was: on its
 * own line(s), the lines go (with a comment on its last line, which describes it); inside an
 * object written on one line, the property and one separating comma go. When it was the last
 * property of a file without trailing commas, the comma before it goes too; a comma after it on a
 * later line (comma-first) goes with it.
 * @example applyEdits('{"a": 1, "b": 2}', removeProperty('{"a": 1, "b": 2}', root, bNode)) // '{"a": 1}'
 */
export function removeProperty(text: string, object: Node, property: Node): Edit[] {
  const siblings = object.children ?? [];
  const index = siblings.indexOf(property);
  const previous = siblings[index - 1];
  const next = siblings[index + 1];
  const end = property.offset + property.length;
  if (spansLines(text, object) && startsLine(text, property.offset)) {
    const lineStart = property.offset - lineIndent(text, property.offset).length;
    LINE_TAIL.lastIndex = end;
    const tail = LINE_TAIL.exec(text);
    if (tail) {
      const afterTail = end + tail[0].length;
      const eol = text.startsWith('\r\n', afterTail) ? 2 : 1;
      const edits: Edit[] = [{ offset: lineStart, length: afterTail + eol - lineStart, content: '' }];
      const trailingComma = tail[1] === ',';
      if (!next && !trailingComma && previous) {
        // The previous property's comma separated it from this one; with this one gone it would trail.
        const comma = commaAfter(text, previous);
        if (comma !== undefined) edits.push({ offset: comma, length: 1, content: '' });
      } else if (!trailingComma) {
        // Its separating comma on a later line (comma-first layouts, a comma on a line of its own)
        // goes with it: left, it would lead the next property.
        const comma = commaAfter(text, property);
        if (comma !== undefined && comma >= afterTail + eol) edits.push({ offset: comma, length: 1, content: '' });
      }
      return edits;
    }
  }
  if (next) return [{ offset: property.offset, length: next.offset - property.offset, content: '' }];
  if (previous) {
    const start = previous.offset + previous.length;
    const comma = commaAfter(text, property);
    return [{ offset: start, length: (comma === undefined ? end : comma + 1) - start, content: '' }];
  }
  const comma = commaAfter(text, property);
  return [{ offset: property.offset, length: (comma === undefined ? end : comma + 1) - property.offset, content: '' }];
}

/** The offset of the comma right after `node` (only spaces and comments between), if there is one. */
function commaAfter(text: string, node: Node): number | undefined {
  const SKIP = /(?:\s|\/\*(?:[^*]|\*(?!\/))*\*\/|\/\/[^\r\n]*)*/y;
  SKIP.lastIndex = node.offset + node.length;
  SKIP.exec(text);
  return text[SKIP.lastIndex] === ',' ? SKIP.lastIndex : undefined;
}
