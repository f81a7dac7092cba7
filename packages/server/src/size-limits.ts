/**
 * How large what a client sends back may be: checked before any work on it (no MAC, no JSON, no
 * validation), so a hostile multi-megabyte `requestState` or answer costs one length comparison.
 * Documented in docs/server.md ("Size limits").
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CallState } from './state.js';

/**
 * A `requestState`, in characters. What the kit seals holds the call (its text when short, else a
 * digest), its id and each question's times and answers: a few hundred bytes per question, each
 * round's answers at most `MAX_ANSWERS_LENGTH`.
 */
export const MAX_REQUEST_STATE_LENGTH = 1024 * 1024;

/**
 * A round's `inputResponses`, in characters of JSON: every answer sent with one retry together.
 * The state the kit seals holds them all, so no more than it may hold; each answer's content is
 * held to the form's own cap when it is checked (`MAX_ANSWER_LENGTH` of `@elicitkit/form`, 65,536),
 * said at the field — a round of several questions, each answered in full, fits.
 */
export const MAX_ANSWERS_LENGTH = MAX_REQUEST_STATE_LENGTH;

/** Refuses a `requestState` past the limit (-32602), saying so. */
export function tooLargeState(length: number): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `requestState is ${length} characters long, over the limit of ${MAX_REQUEST_STATE_LENGTH}: not one this server sealed`,
  );
}

/**
 * The round's answers, refused (-32602) when their JSON is past the limit. Measured on what the
 * transport parsed: one serialization, before any answer is looked at.
 */
export function checkAnswersSize(inputResponses: Record<string, unknown> | undefined): void {
  if (inputResponses === undefined) return;
  // The SDK copies the answers as sent key by key into a new object: one sent under "__proto__" (a
  // question may have that key) becomes the copy's prototype — found by every lookup of an answer,
  // yet not in the copy's JSON. Measured with it, as it was sent: or answers of any size pass.
  const prototype: unknown = Object.getPrototypeOf(inputResponses);
  const sent =
    prototype === Object.prototype || prototype === null
      ? inputResponses
      : Object.defineProperty({ ...inputResponses }, '__proto__', { value: prototype, enumerable: true });
  let length: number;
  try {
    length = JSON.stringify(sent).length;
  } catch (error) {
    // Nested deeper than the stack measures: no form's answers go so deep, whatever their length.
    if (!(error instanceof RangeError)) throw error;
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `inputResponses nest too deeply to measure against the limit of ${MAX_ANSWERS_LENGTH} characters of JSON: answer with a form's values`,
    );
  }
  if (length > MAX_ANSWERS_LENGTH)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `inputResponses are ${length} characters of JSON, over the limit of ${MAX_ANSWERS_LENGTH}: answer with less`,
    );
}

/** Whether `inputResponses` are within their limit (`checkAnswersSize` would not throw). */
export function answersFit(inputResponses: Record<string, unknown> | undefined): boolean {
  try {
    checkAnswersSize(inputResponses);
    return true;
  } catch {
    return false;
  }
}

/**
 * What the kit's state check hands its tools in place of a state when the round's answers are
 * past their limit: nothing of the state was checked, and the tool refuses the round naming the
 * limit (`checkAnswersSize`).
 */
export const OVERSIZE_ANSWERS = Object.freeze({ oversizeAnswers: true }) as unknown as CallState;

/** A state about to be sealed past the limit: its next round would be refused, so this one says why now. */
export function checkSealedSize(requestState: string): void {
  if (requestState.length > MAX_REQUEST_STATE_LENGTH)
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `The answers so far make a requestState of ${requestState.length} characters, over the limit of ${MAX_REQUEST_STATE_LENGTH}: the call cannot continue`,
    );
}
