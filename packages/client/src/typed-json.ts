/**
 * @elicitkit/client/typed-json — the one reading of JSON a person typed (`notAsTyped`: a number
 * read as another value, `-0`, a key given twice, half a character) on its own, for a browser
 * bundle: the main entry carries the SDK client, which a page that only reads a form has no use for.
 *
 * @example
 * import { notAsTyped } from '@elicitkit/client/typed-json';
 * notAsTyped('{"a":1,"a":2}')?.path; // '$.a'
 */
export {
  type NotAsTyped,
  type NotAsTypedOptions,
  type NotAsTypedReason,
  notAsTyped,
  notAsTypedWhy,
  numberNotAsTyped,
} from './arguments-json.js';
export { numberReadAs } from './exact-number.js';
export { type JsonTextOptions, jsonText } from './json-text.js';
