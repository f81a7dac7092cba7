import { confirmationsOf, type ElicitAction, type FormContent } from '@elicitkit/form';
import { accepts, type Strategy } from './profiles.js';
import { sampleContent } from './values.js';

/** Why doctor gave the answer it gave. */
export type AnswerReason =
  /** What the call's strategy says. */
  | 'strategy'
  /** A confirmation is never accepted without `--allow-destructive`: declined instead. */
  | 'confirmation'
  /** Doctor cannot finish an out-of-band flow, so an accepting strategy declines a URL request. */
  | 'url'
  /** More questions in one call than doctor answers: the rest are cancelled. */
  | 'over-cap';

/** Doctor's answer to one question. */
export interface Answer {
  action: ElicitAction;
  content?: FormContent;
  why: AnswerReason;
}

/**
 * How doctor answers one question under a strategy. URL requests are declined by accepting
 * strategies: consenting would leave a well-behaved server waiting for a page nobody opens.
 *
 * @example
 * answerFor('accept-defaults', { message: 'Which env?', requestedSchema }, { tag: '-a1', overCap: false, allowDestructive: false })
 */
export function answerFor(
  strategy: Strategy,
  params: Record<string, unknown>,
  context: { tag: string; overCap: boolean; allowDestructive: boolean },
): Answer {
  if (context.overCap) return { action: 'cancel', why: 'over-cap' };
  if (strategy === 'decline') return { action: 'decline', why: 'strategy' };
  if (!accepts(strategy)) return { action: 'cancel', why: 'strategy' };
  if (params.mode === 'url') return { action: 'decline', why: 'url' };
  if (!context.allowDestructive && confirmationsOf(params.requestedSchema).length > 0)
    return { action: 'decline', why: 'confirmation' };
  return strategy === 'accept-defaults'
    ? { action: 'accept', content: sampleContent(params.requestedSchema, context.tag), why: 'strategy' }
    : { action: 'accept', content: {}, why: 'strategy' };
}
