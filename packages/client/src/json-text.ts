/**
 * JSON text of a value at any depth. `JSON.parse` takes JSON nested a million levels deep, but
 * `JSON.stringify` overflows the stack past a few thousand (about 4,000 on Node's default stack): a
 * server's 30 KB message can hold a value that a client can read and then cannot write back out,
 * print or compare. `jsonText` writes what `JSON.stringify` writes and, where that overflows, walks
 * the value with a stack of its own.
 */

/** How to write the JSON text. */
export interface JsonTextOptions {
  /**
   * Spaces per level of indentation, as `JSON.stringify`'s third argument (0 to 10; 0: one line).
   * A value too deep for `JSON.stringify` is written on one line: indented, its text would grow
   * with the square of its depth (10,000 levels at 2 spaces: 100 MB of spaces).
   */
  space?: number;
  /** Each object's keys in code-unit order, so that equal data gives equal text whatever the order of its keys. */
  sortKeys?: boolean;
}

/**
 * `JSON.stringify(value, null, space)`, at any depth (past `JSON.stringify`'s, on one line); with
 * `sortKeys`, on one line, the keys of each object sorted. Undefined where `JSON.stringify` gives
 * undefined (`undefined`, a function); throws its TypeError for a cycle or a bigint.
 *
 * @example
 * const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
 * jsonText(deep).length; // 200000 (JSON.stringify(deep) throws RangeError)
 * jsonText({ b: 1, a: [true] }, { sortKeys: true }); // '{"a":[true],"b":1}'
 */
export function jsonText(value: unknown, options: JsonTextOptions = {}): string | undefined {
  if (!options.sortKeys) {
    try {
      return JSON.stringify(value, null, options.space);
    } catch (error) {
      // Only the stack's overflow is walked again; a cycle's TypeError is the caller's to see.
      if (!(error instanceof RangeError)) throw error;
    }
  }
  return walkJson(value, options.sortKeys === true);
}

/** An object or array being written: its keys (objects only), the next one to write, whether one was. */
interface Open {
  holder: object;
  keys: string[] | undefined;
  next: number;
  wrote: boolean;
}

/**
 * JSON text of `root` as `JSON.stringify(root)` writes it, without recursion. Exported for the
 * tests, which hold it to `JSON.stringify` on values shallow enough for both.
 */
export function walkJson(root: unknown, sortKeys: boolean): string | undefined {
  const first = toJson('', root);
  if (!isContainer(first)) return scalar(first);
  const out: string[] = [];
  const stack: Open[] = [];
  /** The objects and arrays being written: one met again inside itself is a cycle. */
  const ancestors = new Set<object>();
  const open = (holder: object): void => {
    if (ancestors.has(holder)) throw new TypeError('Converting circular structure to JSON');
    ancestors.add(holder);
    const keys = Array.isArray(holder) ? undefined : Object.keys(holder);
    if (keys && sortKeys) keys.sort();
    stack.push({ holder, keys, next: 0, wrote: false });
    out.push(keys ? '{' : '[');
  };
  open(first);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as Open;
    const length = top.keys ? top.keys.length : (top.holder as unknown[]).length;
    let opened = false;
    while (top.next < length && !opened) {
      const key = top.keys ? (top.keys[top.next] as string) : String(top.next);
      top.next++;
      const value = toJson(key, (top.holder as Record<string, unknown>)[key]);
      const text = isContainer(value) ? undefined : scalar(value);
      // An object leaves out what JSON cannot hold; an array writes null in its place.
      if (top.keys && text === undefined && !isContainer(value)) continue;
      if (top.wrote) out.push(',');
      top.wrote = true;
      if (top.keys) out.push(JSON.stringify(key), ':');
      if (isContainer(value)) {
        open(value);
        opened = true;
      } else out.push(text ?? 'null');
    }
    if (opened) continue;
    out.push(top.keys ? '}' : ']');
    ancestors.delete(top.holder);
    stack.pop();
  }
  return out.join('');
}

/** The value as JSON.stringify sees it: after its `toJSON` (a Date's, say), if it has one. */
function toJson(key: string, value: unknown): unknown {
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return (value as { toJSON: (key: string) => unknown }).toJSON(key);
  return value;
}

/** An object or array JSON.stringify writes member by member (a boxed `new Number(1)` it writes as 1). */
function isContainer(value: unknown): value is object {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Number || value instanceof String || value instanceof Boolean)
  );
}

/** A value that is no object or array, as JSON.stringify writes it (undefined for what it leaves out). */
function scalar(value: unknown): string | undefined {
  return JSON.stringify(value);
}
