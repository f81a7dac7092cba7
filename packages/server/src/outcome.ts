import type { AnyForm, Issue, IssueCode, OptionModel } from '@elicitkit/form';
import type { CallToolResult } from '@modelcontextprotocol/server';

/** A tool argument the person could not be asked for: what a fallback message names. */
export interface MissingArgument {
  name: string;
  label: string;
  required: boolean;
  description?: string;
  /** The allowed values, for selects. */
  allowed?: OptionModel[];
}

/** Every non-accept outcome carries the ready-made tool result that tells the model what happened. */
interface WithResult {
  /** The tool result to return for this outcome: clear text and `structuredContent.status`. */
  result(): CallToolResult;
}

/** The person submitted the form and the answer passed every check. */
export interface Accepted<T> {
  action: 'accept';
  value: T;
}
/** The person refused to give this information. Do not ask again. */
export interface Declined extends WithResult {
  action: 'decline';
}
/** The person abandoned the whole operation. Stop now: no defaults, no guesses, no side effects. */
export interface Cancelled extends WithResult {
  action: 'cancel';
}
/** The client cannot show this kind of question. `missing` says what the caller must pass instead. */
export interface Unsupported extends WithResult {
  action: 'unsupported';
  missing: MissingArgument[];
  /** Why: no capability for the mode, or a form the client's revision cannot express. */
  reason: string;
}
/**
 * The person answered, but the answer failed validation or the business check — or, on
 * 2026-07-28, its question kept changing before the answers arrived (one issue with the code
 * `QUESTION_UNSTABLE`), so none could count. Nothing was done.
 */
export interface Invalid extends WithResult {
  action: 'invalid';
  issues: Issue[];
}

/**
 * The issue code of an `invalid` outcome whose question changed before each of its answers
 * arrived, `maxQuestionChanges` times (a message showing the time, a count that differs on every
 * look): asking it again could never end, so the call ends instead.
 *
 * @example
 * if (outcome.action === 'invalid' && outcome.issues.some((i) => i.code === QUESTION_UNSTABLE)) log.warn('volatile question');
 */
export const QUESTION_UNSTABLE = 'question_unstable' satisfies IssueCode;
/** The issue code of a 2026-07-28 call stopped before its effect: an answer of the person's was to a question this run no longer asked. */
export const ANSWER_UNUSED = 'answer_unused' satisfies IssueCode;
/** No answer arrived in time. */
export interface TimedOut extends WithResult {
  action: 'timeout';
}
/** URL mode only: the person consented and opened the page but has not finished there yet. */
export interface Pending extends WithResult {
  action: 'pending';
}

/**
 * What `ask()` resolves with. Only `accept` carries a value, so a handler cannot reach the answer
 * without first ruling out decline, cancel, unsupported, invalid and timeout.
 *
 * @example
 * const env = await ask('env', { message: 'Which environment should order-service go to?' });
 * if (env.action !== 'accept') return env.result();
 * deploy(env.value.env);
 */
export type Outcome<T> = Accepted<T> | Declined | Cancelled | Unsupported | Invalid | TimedOut;

/**
 * What `askUrl()` resolves with: accept means the out-of-band flow completed; `invalid` only when
 * the URL kept changing between 2026-07-28 rounds (`QUESTION_UNSTABLE`).
 */
export type UrlOutcome = Accepted<true> | Declined | Cancelled | Unsupported | Invalid | TimedOut | Pending;

/** Any outcome of `ask()` or `askUrl()`. */
export type AnyOutcome = Outcome<unknown> | UrlOutcome;

/** One handler per outcome; the compiler rejects a missing branch. */
export type OutcomeHandlers<O extends AnyOutcome, R> = {
  [A in O['action']]: (outcome: Extract<O, { action: A }>) => R;
};

/**
 * Exhaustive handling as an expression: every branch must be given.
 *
 * @example
 * return match(outcome, {
 *   accept: ({ value }) => deploy(value),
 *   decline: (o) => o.result(),
 *   cancel: (o) => o.result(),
 *   unsupported: (o) => o.result(),
 *   invalid: (o) => o.result(),
 *   timeout: (o) => o.result(),
 * });
 */
export function match<O extends AnyOutcome, R>(outcome: O, handlers: OutcomeHandlers<O, R>): R {
  const handler = (handlers as unknown as Record<string, (o: O) => R>)[outcome.action];
  if (!handler) throw new TypeError(`no handler for outcome "${outcome.action}"`);
  return handler(outcome);
}

/** The fallback list a form implies: its fields, with allowed values for selects. */
export function missingOf(form: AnyForm): MissingArgument[] {
  return form.fields.map((f) => {
    const out: MissingArgument = { name: f.name, label: f.label, required: f.required };
    if (f.help) out.description = f.help;
    if (f.kind === 'select' || f.kind === 'multiselect') out.allowed = f.options;
    return out;
  });
}
