/**
 * How deep the JSON a chat carries may nest: arguments typed in it, a tool's definition, a tool's
 * structured result. Past it, the chat leaves the value out and says so. What it carries is written
 * with `JSON.stringify` on the server (its stream, the model's request) and in the browser (the
 * saved conversation), which recurses: a few thousand levels overflow the stack ("Maximum call
 * stack size exceeded"), and a server's 30 KB message can nest that deep. No tool's arguments,
 * definition or result comes near 100 levels.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * How deep a JSON body the app is sent that no person typed may nest (`readJson`): a chat's
 * history carries values up to `MAX_JSON_DEPTH` inside its messages and their parts.
 */
export const MAX_BODY_DEPTH = 2 * MAX_JSON_DEPTH;

/**
 * Whether `value` nests objects and arrays more than `max` levels deep (the value itself is level
 * 0), measured without recursion and stopping at the first value past `max`.
 *
 * @example
 * nestsDeeper({ a: [1] }, 1); // false
 * nestsDeeper({ a: [[1]] }, 1); // true
 */
export function nestsDeeper(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const pending: [value: unknown, depth: number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [v, depth] = next;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const inner of Object.values(v)) pending.push([inner, depth + 1]);
  }
  return false;
}

/**
 * How deep JSON text nests, read piece by piece as it streams (a model's tool-call arguments):
 * `read` says whether the text so far stays within `max` levels of objects and arrays, counted as
 * `nestsDeeper` counts them (the value itself is level 0), brackets inside strings not counted.
 * Once past, it stays past. Reads the text, never parses it: no recursion, whatever the depth.
 *
 * @example
 * const depth = new JsonTextDepth(1);
 * depth.read('{"a":['); // true
 * depth.read('['); // false
 */
export class JsonTextDepth {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private over = false;

  constructor(private readonly max: number = MAX_JSON_DEPTH) {}

  read(text: string): boolean {
    if (this.over) return false;
    for (const c of text) {
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.inString = false;
      } else if (c === '"') this.inString = true;
      else if (c === '{' || c === '[') {
        if (++this.depth > this.max + 1) {
          this.over = true;
          return false;
        }
      } else if (c === '}' || c === ']') this.depth--;
    }
    return true;
  }
}
