import { confirmationsOf, describeFields, type ElicitAction, type FieldModel, type FormContent } from '@elicitkit/form';
import { type Branch, branchLabel } from './branches.js';
import { accepts, type Strategy } from './profiles.js';
import { MAX_SAMPLE_TEXT, sampleContent } from './values.js';

/** Why doctor gave the answer it gave. */
export type AnswerReason =
  /** What the call's strategy says. */
  | 'strategy'
  /** A branch doctor explores at this question: one value chosen, or a decline or cancel deeper in the call. */
  | 'explore'
  /** A confirmation is never accepted without `--allow-destructive`: declined instead. */
  | 'confirmation'
  /** Doctor cannot finish an out-of-band flow, so an accepting strategy declines a URL request. */
  | 'url'
  /** More questions in one call than doctor answers: the rest are cancelled. */
  | 'over-cap'
  /** No call was running: a question outside any call is cancelled. */
  | 'outside'
  /** A form asking for more text than doctor writes (`MAX_SAMPLE_TEXT`): declined, never built. */
  | 'oversize';

/** Questions doctor answers in one call before it cancels the rest (`over-cap`); also the deepest `--depth`. */
export const MAX_ASKS = 5;

/**
 * Questions one call may ask before doctor stops it: a server that asks in an endless loop would
 * otherwise be answered and recorded for the whole of the call's timeout, thousands of times.
 * Far past `MAX_ASKS`, so every finding about too many questions is still made from what came.
 */
export const RUNAWAY_ASKS = 50;

/**
 * Questions outside any call kept per profile: a server may push them at any time, on and on;
 * past this many doctor still cancels and counts them, and keeps no more.
 */
export const MAX_OUTSIDE = RUNAWAY_ASKS;

/** Doctor's answer to one question. */
export interface Answer {
  action: ElicitAction;
  content?: FormContent;
  why: AnswerReason;
  /** The branch taken on purpose (`why: 'explore'`). */
  branch?: Branch;
}

/**
 * How doctor answers one question under a strategy. URL requests are declined by accepting
 * strategies: consenting would leave a well-behaved server waiting for a page nobody opens.
 * A `branch` (exploring) changes one answer, after the same safety checks: a confirmation is
 * still declined without `allowDestructive`, a URL still never consented to.
 *
 * @example
 * answerFor('accept-defaults', { message: 'Which env?', requestedSchema }, { tag: '-a1', overCap: false, allowDestructive: false })
 * answerFor('explore', params, { tag: '-a2', overCap: false, allowDestructive: false, branch: { action: 'accept', field: 'env', value: 'prod' } })
 */
export function answerFor(
  strategy: Strategy,
  params: Record<string, unknown>,
  context: { tag: string; overCap: boolean; allowDestructive: boolean; branch?: Branch | undefined },
): Answer {
  const { branch } = context;
  if (context.overCap) return { action: 'cancel', why: 'over-cap' };
  if (branch && branch.action !== 'accept') return { action: branch.action, why: 'explore', branch };
  if (strategy === 'decline') return { action: 'decline', why: 'strategy' };
  if (!accepts(strategy)) return { action: 'cancel', why: 'strategy' };
  if (params.mode === 'url') return { action: 'decline', why: 'url' };
  if (describeFields(params.requestedSchema).some((f) => f.kind === 'text' && (f.minLength ?? 0) > MAX_SAMPLE_TEXT))
    return { action: 'decline', why: 'oversize' };
  if (!context.allowDestructive && confirmationsOf(params.requestedSchema).length > 0)
    return { action: 'decline', why: 'confirmation' };
  if (strategy === 'accept-empty')
    return { action: 'accept', content: lacking(params.requestedSchema, context.tag), why: 'strategy' };
  const content = sampleContent(params.requestedSchema, context.tag);
  if (branch?.action !== 'accept') return { action: 'accept', content, why: 'strategy' };
  Object.defineProperty(content, branch.field, {
    value: branch.value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return { action: 'accept', content, why: 'explore', branch };
}

/**
 * The accept-empty strategy's content: nothing, for a form that requires one field or none; for
 * one that requires two or more, every field but its last required one. A server that checks only
 * that something came, or only its first field, takes an empty answer for the incomplete one it is
 * all the same — and acts on a value that was never given.
 *
 * @example
 * lacking({ type: 'object', properties: { env: …, ticket: … }, required: ['env', 'ticket'] }) // → { env: 'dev' }
 */
function lacking(schema: unknown, tag: string): FormContent {
  const fields = describeFields(schema);
  const required = fields.filter((f) => f.required);
  if (required.length < 2) return {};
  const content = sampleContent(schema, tag);
  delete content[(required.at(-1) as FieldModel).name];
  return content;
}

/** How reports show an answer: `accept`, `accept (env=prod)`, `decline (confirmation)`, `cancel (explore)`. */
export function answerLabel(answer: Answer): string {
  if (answer.why === 'strategy') return answer.action;
  if (answer.why === 'explore' && answer.branch?.action === 'accept')
    return `${answer.action} (${branchLabel(answer.branch)})`;
  return `${answer.action} (${answer.why})`;
}
