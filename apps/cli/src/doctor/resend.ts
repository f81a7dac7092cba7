import type { Ask, CallRecord } from './records.js';
import { changedAfterAnswer, sameQuestion } from './rounds.js';
import type { RawAsk } from './tap.js';

/** Rounds sent again per call: enough to tell a question that changed once from one that changes every time. */
const MAX_RESENDS = 3;

/**
 * Whether doctor keeps the round that brought `ask` (its `request`, the server's `requestState`
 * in it), coming after `asks` in its call, to send again (`resendChanged`): only a question that
 * came back changed after its answer is sent again, and only the first `MAX_RESENDS` of them.
 * Every other round is let go as it comes, so a server's requestState of megabytes is held a few
 * times per call, not once per question.
 *
 * @example
 * if (!keepsRound(call.asks, ask)) delete ask.request;
 */
export function keepsRound(asks: readonly Ask[], ask: Ask): boolean {
  if (ask.request === undefined) return false;
  const changed = changedAfterAnswer([...asks, ask]);
  return changed.length <= MAX_RESENDS && changed.at(-1) === ask;
}

/**
 * EK18 asks whether a 2026-07-28 question changed by itself. A round is its request — the
 * arguments, the answers (`inputResponses`) and the server's `requestState` — so for each question
 * that came back changed after its answer, doctor sends the round that brought it again, word for
 * word, and marks the question `resent`: `same` when the same question came back (the answer
 * changed it, as a retry prompt that says why the ticket did not fit and how many tries are left),
 * `changed` when another did (it changes on every look: a clock, a live count). A resend that
 * brings no question under that key (a result, an error, a timeout) leaves it unmarked.
 *
 * @example
 * await resendChanged(call, (request) => sendAgain(request));
 */
export async function resendChanged(
  call: CallRecord,
  send: (request: Record<string, unknown>) => Promise<RawAsk[]>,
): Promise<void> {
  for (const ask of changedAfterAnswer(call.asks).slice(0, MAX_RESENDS)) {
    if (!ask.request) continue;
    const again = (await send(ask.request)).find((a) => a.via === 'embedded' && a.key === ask.key);
    if (again) ask.resent = sameQuestion(again, ask) ? 'same' : 'changed';
  }
}
