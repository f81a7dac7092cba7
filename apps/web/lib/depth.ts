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
