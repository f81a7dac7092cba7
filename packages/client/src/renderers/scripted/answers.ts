import type { ContentValue, FormContent } from '@elicitkit/form';

/**
 * One entry of an answers file (`docs/cli.md`, "Answers files"), used for the elicitations in order.
 *
 * @example
 * [{"action":"accept","content":{"env":"prod"}}, {"action":"accept-defaults"}, {"action":"decline"}, {"action":"cancel"}]
 */
export type ScriptedAnswer =
  | { action: 'accept'; content?: FormContent }
  /** Accept with every default the form declares. */
  | { action: 'accept-defaults' }
  | { action: 'decline' }
  | { action: 'cancel' };

/**
 * What is wrong with an answers file; `index` is the entry (0-based), absent for the file as a whole.
 *
 * @example
 * { index: 2, message: '"action" must be one of "accept", "accept-defaults", "decline", "cancel", got "approve"' }
 */
export interface AnswerProblem {
  index?: number;
  message: string;
}

/**
 * The answers, or every problem found.
 *
 * @example
 * const parsed: ParsedAnswers = parseAnswers(json);
 * const renderer = parsed.ok ? createScriptedRenderer(parsed.answers) : fail(parsed.problems);
 */
export type ParsedAnswers = { ok: true; answers: ScriptedAnswer[] } | { ok: false; problems: AnswerProblem[] };

const ACTIONS = ['accept', 'accept-defaults', 'decline', 'cancel'];
/** A script is for a handful of questions; past this it is a mistake (or an attack on memory). */
const MAX_ENTRIES = 1_000;

/**
 * Reads an answers file (already `JSON.parse`d): a JSON array of `{action, content?}` entries.
 * Every problem is reported at once with the entry it is in, as data.
 *
 * @example
 * const parsed = parseAnswers(JSON.parse(await readFile(path, 'utf8')));
 * if (!parsed.ok) fail(parsed.problems.map((p) => `entry ${p.index}: ${p.message}`).join('\n'));
 */
export function parseAnswers(json: unknown): ParsedAnswers {
  if (!Array.isArray(json)) {
    return { ok: false, problems: [{ message: `The answers file must hold a JSON array, not ${kind(json)}.` }] };
  }
  if (json.length > MAX_ENTRIES) {
    return {
      ok: false,
      problems: [{ message: `The answers file has ${json.length} entries; at most ${MAX_ENTRIES}.` }],
    };
  }
  const answers: ScriptedAnswer[] = [];
  const problems: AnswerProblem[] = [];
  json.forEach((entry: unknown, index) => {
    const parsed = parseEntry(entry);
    if (typeof parsed === 'string') problems.push({ index, message: parsed });
    else answers.push(parsed);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, answers };
}

/**
 * Problems as lines, numbering entries from 1 the way people count.
 *
 * @example
 * if (!parsed.ok) { console.error(formatAnswerProblems(parsed.problems)); process.exitCode = 2; }
 */
export function formatAnswerProblems(problems: readonly AnswerProblem[]): string {
  return problems.map((p) => (p.index === undefined ? p.message : `entry ${p.index + 1}: ${p.message}`)).join('\n');
}

function parseEntry(entry: unknown): ScriptedAnswer | string {
  if (!isPlainObject(entry)) return `expected an object like {"action":"decline"}, got ${kind(entry)}`;
  const action = Object.hasOwn(entry, 'action') ? entry.action : undefined;
  if (typeof action !== 'string' || !ACTIONS.includes(action)) {
    return `"action" must be one of ${ACTIONS.map((a) => `"${a}"`).join(', ')}, got ${kind(action)}`;
  }
  const extra = Object.keys(entry).filter((k) => k !== 'action' && !(k === 'content' && action === 'accept'));
  if (extra.length > 0) {
    const hint = extra.includes('content') ? ` ("content" belongs to "accept" only)` : '';
    return `unexpected ${extra.map((k) => `"${k}"`).join(', ')}${hint}`;
  }
  if (action !== 'accept') return { action } as ScriptedAnswer;
  if (!Object.hasOwn(entry, 'content')) return { action: 'accept' };
  const content = readContent(entry.content);
  return typeof content === 'string' ? content : { action: 'accept', content };
}

function readContent(raw: unknown): FormContent | string {
  if (!isPlainObject(raw)) return `"content" must be an object of field values, got ${kind(raw)}`;
  const content: FormContent = {};
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    if (!isContentValue(value)) {
      return `"content.${key}" must be text, a number, true/false or a list of texts, got ${kind(value)}`;
    }
    // defineProperty: a "__proto__" key from JSON stays a plain (and later refused) field name.
    Object.defineProperty(content, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return content;
}

function isContentValue(value: unknown): value is ContentValue {
  if (typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value);
  if (typeof value === 'object') return 'an object';
  return typeof value === 'undefined' ? 'nothing' : `${typeof value} ${String(value)}`;
}
