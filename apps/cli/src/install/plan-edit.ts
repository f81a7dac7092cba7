import { applyEdits, type Edit, type Node, type ParseError, printParseErrorCode, visit } from 'jsonc-parser';
import type { JsonValue } from './clients.js';
import { expand, readTop, TOO_DEEP, tooDeep } from './config-tree.js';
import { DEFAULT_STYLE, detectStyle, type JsonStyle, pretty } from './json-style.js';
import { insertProperty, removeProperty, replaceValue } from './text-edits.js';

/** One server entry to put into a config file. */
export interface EditTarget {
  /** `mcpServers` or `servers`. */
  rootKey: string;
  name: string;
  entry: JsonValue;
  /** Comments and trailing commas are normal here (VS Code); elsewhere they earn a note. */
  jsonc: boolean;
}

/** What installing would do to a file's text. Nothing here touches the disk. */
export type EditPlan =
  | { kind: 'add' | 'replace'; text: string; notes: string[] }
  | { kind: 'unchanged'; notes: string[] }
  | { kind: 'refused'; reason: string; line: number; column: number };

/**
 * Plans the smallest text change that makes `rootKey.name` equal `entry`: everything else in the file —
 * comments, key order, formatting, other servers — stays byte-for-byte. `before` is the file's text, or
 * `undefined` when there is no file yet.
 * @example planEdit('{}', { rootKey: 'mcpServers', name: 'x', entry: { command: 'y', args: [] }, jsonc: false })
 * // { kind: 'add', text: '{\n  "mcpServers": {\n    "x": {\n      "command": "y",\n      "args": []\n    }\n  }\n}', notes: [] }
 */
export function planEdit(before: string | undefined, target: EditTarget): EditPlan {
  const { rootKey, name, entry } = target;
  // A blank file holds nothing to lose (some clients create one empty), so it is treated as new.
  if (before === undefined || before.trim() === '')
    return { kind: 'add', text: `${pretty({ [rootKey]: { [name]: entry } }, '', DEFAULT_STYLE)}\n`, notes: [] };

  const bom = before.startsWith('\uFEFF') ? '\uFEFF' : '';
  const text = before.slice(bom.length);
  const deep = tooDeep(text);
  if (deep !== undefined) return refuse(text, deep, TOO_DEEP);
  const { root, error, lenient } = readTop(text);
  if (error) return refuse(text, error.offset, words(printParseErrorCode(error.error)));
  if (root?.type !== 'object')
    return refuse(text, root?.offset ?? 0, `the top-level value is ${kindOf(root)}, not an object`);

  const notes = target.jsonc || !lenient ? [] : strictJsonNotes(text);
  const style = detectStyle(text, root.children?.[0]?.offset);
  const outline = lastProperty(root, rootKey)?.children?.[1];
  if (!outline)
    return {
      kind: 'add',
      text: bom + applyEdits(text, insertProperty(text, root, rootKey, { [name]: entry }, style)),
      notes,
    };
  if (outline.type !== 'object')
    return refuse(text, outline.offset, `"${rootKey}" is ${kindOf(outline)}, not an object of servers`);
  const servers = expand(text, outline).node as Node;

  const property = lastProperty(servers, name);
  const current = property?.children?.[1];
  if (!property || !current)
    return { kind: 'add', text: bom + applyEdits(text, insertProperty(text, servers, name, entry, style)), notes };
  // A key twice in the entry (`"env": {…}, "env": {…}`): a client reads the last, but which one the
  // user meant is theirs to say. Replacing the entry lost both, and keeping one loses the other.
  const twice = secondOfAKey(current);
  if (twice)
    return refuse(
      text,
      twice.offset,
      `the entry "${name}" has "${twice.key}" twice (a client reads only the last, and elicitkit does not choose for you): remove one of them`,
    );
  if (nodeEquals(current, entry)) return { kind: 'unchanged', notes };
  // The entry's own settings (env with its keys, cwd, disabled, …) are the user's: kept, where the
  // server still runs the same way (a command, or a URL).
  const own = ownSettings(current, entry);
  if (own?.kept.length) {
    if (own.same) return { kind: 'unchanged', notes };
    return {
      kind: 'replace',
      text: bom + setInPlace(text, servers, name, entry as Record<string, JsonValue>, style),
      notes: [...notes, `kept the entry's own ${own.kept.join(', ')}`],
    };
  }
  const dropped =
    own?.dropped.length === 0 || own === undefined
      ? []
      : [
          `the entry's own ${own.dropped.join(', ')} went with it: they were for ${
            own.was === 'command' ? 'a command it started' : 'the URL it reached'
          } (the previous version is kept beside the file)`,
        ];
  return {
    kind: 'replace',
    text: bom + applyEdits(text, replaceValue(text, servers, property, entry, style)),
    notes: [...notes, ...dropped],
  };
}

/** What install writes in an entry: how the client reaches the server. Anything else in one is the user's. */
const MANAGED = new Set(['type', 'command', 'args', 'url', 'headers']);

/** The second property of `object` whose key an earlier one has, with that key; undefined when every key is once. */
function secondOfAKey(object: Node): { key: string; offset: number } | undefined {
  if (object.type !== 'object') return undefined;
  const seen = new Set<string>();
  for (const property of object.children ?? []) {
    const key = String(property.children?.[0]?.value);
    if (seen.has(key)) return { key, offset: property.offset };
    seen.add(key);
  }
  return undefined;
}

/**
 * The settings an existing entry holds beyond what install writes: `kept` when the entry still
 * reaches its server the same way (by a command, or by a URL), else `dropped` — with `same` when
 * what install writes is already there. Undefined when the entry is not a plain object (one with
 * a key twice is refused before: `secondOfAKey`).
 */
function ownSettings(
  current: Node,
  entry: JsonValue,
): { kept: string[]; dropped: string[]; same: boolean; was: 'command' | 'url' } | undefined {
  if (current.type !== 'object' || entry === null || typeof entry !== 'object' || Array.isArray(entry))
    return undefined;
  const keys = (current.children ?? []).map((p) => String(p.children?.[0]?.value));
  const own = keys.filter((key) => !MANAGED.has(key));
  const was = keys.includes('command') ? 'command' : 'url';
  const sameWay = keys.includes('command') === Object.hasOwn(entry, 'command');
  const managed = Object.fromEntries(
    (current.children ?? []).flatMap((p) => {
      const [key, value] = p.children ?? [];
      return key && value && MANAGED.has(String(key.value)) ? [[String(key.value), value] as const] : [];
    }),
  );
  const same =
    Object.keys(managed).length === Object.keys(entry).length &&
    Object.entries(entry).every(([key, value]) => managed[key] !== undefined && nodeEquals(managed[key], value));
  return sameWay ? { kept: own, dropped: [], same, was } : { kept: [], dropped: own, same: false, was };
}

/**
 * `text` with the object `servers.name` holding `entry`'s properties — each replaced or added where
 * it is, and install's other properties taken out — every other property of it left as it was.
 */
function setInPlace(
  text: string,
  servers: Node,
  name: string,
  entry: Record<string, JsonValue>,
  style: JsonStyle,
): string {
  // Every edit falls inside `servers`, so only it is parsed again after each, grown or shrunk by it.
  let span = { offset: servers.offset, length: servers.length, parent: servers.parent };
  const at = () => lastProperty(expand(text, span).node as Node, name)?.children?.[1] as Node;
  const apply = (edits: Edit[]) => {
    text = applyEdits(text, edits);
    span = { ...span, length: span.length + grown(edits) };
  };
  for (const [key, value] of Object.entries(entry)) {
    const object = at();
    const property = lastProperty(object, key);
    apply(
      property ? replaceValue(text, object, property, value, style) : insertProperty(text, object, key, value, style),
    );
  }
  for (;;) {
    const object = at();
    const stale = object.children?.find((p) => {
      const key = String(p.children?.[0]?.value);
      return MANAGED.has(key) && !Object.hasOwn(entry, key);
    });
    if (!stale) return text;
    apply(removeProperty(text, object, stale));
  }
}

/** How many characters `edits` add (negative: take away). */
function grown(edits: Edit[]): number {
  return edits.reduce((sum, edit) => sum + edit.content.length - edit.length, 0);
}

function refuse(text: string, offset: number, reason: string): EditPlan {
  return { kind: 'refused', reason, ...position(text, offset) };
}

/** 1-based, as editors and compilers count; a line ends as the parser ends one (LF, CR, CRLF). */
function position(text: string, offset: number): { line: number; column: number } {
  const lines = text.slice(0, offset).split(/\r\n?|\n/);
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}

/** The client parses plain JSON, so a comment or trailing comma that VS Code would accept may break it. */
function strictJsonNotes(text: string): string[] {
  let error: ParseError | undefined;
  visit(
    text,
    {
      onError: (code, offset, length) => {
        error ??= { error: code, offset, length };
      },
    },
    { disallowComments: true },
  );
  if (!error) return [];
  const { line, column } = position(text, error.offset);
  return [
    `the file has comments or trailing commas (first at line ${line}, column ${column}); this client may not accept them`,
  ];
}

/** JSON.parse keeps the last of duplicate keys, and so does every client; edit the one they read. */
function lastProperty(object: Node, key: string): Node | undefined {
  return object.children?.findLast((p) => p.children?.[0]?.value === key);
}

/** Deep equality of parsed text and a value; key order does not count, duplicate keys never match. */
function nodeEquals(node: Node, value: JsonValue): boolean {
  const children = node.children ?? [];
  if (Array.isArray(value))
    return (
      node.type === 'array' &&
      children.length === value.length &&
      value.every((v, i) => {
        const child = children[i];
        return child !== undefined && nodeEquals(child, v);
      })
    );
  if (value !== null && typeof value === 'object') {
    if (node.type !== 'object') return false;
    const keys = new Set(children.map((p) => String(p.children?.[0]?.value)));
    if (keys.size !== children.length || keys.size !== Object.keys(value).length) return false;
    return children.every((property) => {
      const [key, child] = property.children ?? [];
      const expected = key && Object.hasOwn(value, key.value) ? value[key.value] : undefined;
      return child !== undefined && expected !== undefined && nodeEquals(child, expected);
    });
  }
  return node.type !== 'object' && node.type !== 'array' && node.value === value;
}

function kindOf(node: Node | undefined): string {
  if (!node || node.type === 'null') return 'null';
  return node.type === 'array' || node.type === 'object' ? `an ${node.type}` : `a ${node.type}`;
}

/** `CommaExpected` → `comma expected`. */
function words(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** What uninstalling would do to a file's text. */
export type RemovePlan =
  | { kind: 'remove'; text: string }
  | { kind: 'absent' }
  | { kind: 'refused'; reason: string; line: number; column: number };

/**
 * Plans taking `rootKey.name` out of a config file, every other byte kept (comments, order,
 * formatting, other servers). A duplicate key is removed in every copy: a client reads the last.
 * @example planRemove('{"mcpServers": {"a": {}, "b": {}}}', 'mcpServers', 'b') // { kind: 'remove', text: '{"mcpServers": {"a": {}}}' }
 */
export function planRemove(before: string | undefined, rootKey: string, name: string): RemovePlan {
  if (before === undefined || before.trim() === '') return { kind: 'absent' };
  const bom = before.startsWith('\uFEFF') ? '\uFEFF' : '';
  let text = before.slice(bom.length);
  const deep = tooDeep(text);
  if (deep !== undefined) return refuse(text, deep, TOO_DEEP) as RemovePlan;
  const { root, error } = readTop(text);
  if (error) return refuse(text, error.offset, words(printParseErrorCode(error.error))) as RemovePlan;
  if (root?.type !== 'object')
    return refuse(text, root?.offset ?? 0, `the top-level value is ${kindOf(root)}, not an object`) as RemovePlan;
  const outline = lastProperty(root, rootKey)?.children?.[1];
  if (outline?.type !== 'object') return { kind: 'absent' };
  // Every edit falls inside the servers object, so only it is parsed again after each.
  let span = { offset: outline.offset, length: outline.length, parent: outline.parent };
  let removed = false;
  for (;;) {
    const servers = expand(text, span).node as Node;
    const property = lastProperty(servers, name);
    if (!property) break;
    const edits = removeProperty(text, servers, property);
    text = applyEdits(text, edits);
    span = { ...span, length: span.length + grown(edits) };
    removed = true;
  }
  if (!removed) return { kind: 'absent' };
  // Never write a file its client could no longer read: a layout these edits do not foresee is
  // refused, and the file left as it was. The rest of the file read well and is unchanged, so the
  // servers object reading as one whole value is enough.
  const first = expand(text, span).errors[0];
  if (first) {
    const at = before.slice(bom.length);
    return refuse(
      at,
      0,
      `taking "${name}" out of this layout would leave the file unreadable (${words(printParseErrorCode(first.error))}); remove it by hand`,
    ) as RemovePlan;
  }
  return { kind: 'remove', text: bom + text };
}
