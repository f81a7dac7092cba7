/**
 * The longest message a question may carry, in characters. A person reads it before deciding; one
 * longer than this is no question but a load (a hostile server's megabytes to lint and to draw).
 *
 * @example
 * if (message.length > MAX_MESSAGE_LENGTH) refuse(message.length);
 */
export const MAX_MESSAGE_LENGTH = 65_536;

/**
 * Why a question's message cannot be shown, or undefined when it can: what `checkFormRequest` and
 * `attach` refuse a question for before anything else reads it.
 *
 * @example
 * const tooLong = messageProblem(params.message);
 * if (tooLong) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${tooLong.message}. ${tooLong.fix}`);
 */
export function messageProblem(message: string): { message: string; fix: string } | undefined {
  if (message.length <= MAX_MESSAGE_LENGTH) return undefined;
  return {
    message: `the message is ${message.length} characters long, over the ${MAX_MESSAGE_LENGTH} a question may carry`,
    fix: 'Say what is asked in a few sentences; link to anything long (in the message, or with URL mode).',
  };
}
