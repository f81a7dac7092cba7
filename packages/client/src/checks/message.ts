/**
 * The longest message a question may carry, in characters. A person reads it before deciding; one
 * longer than this is no question but a load (a hostile server's megabytes to lint and to draw).
 */
export const MAX_MESSAGE_LENGTH = 65_536;

/** Why a question's message cannot be shown, or undefined when it can. */
export function messageProblem(message: string): { message: string; fix: string } | undefined {
  if (message.length <= MAX_MESSAGE_LENGTH) return undefined;
  return {
    message: `the message is ${message.length} characters long, over the ${MAX_MESSAGE_LENGTH} a question may carry`,
    fix: 'Say what is asked in a few sentences; link to anything long (in the message, or with URL mode).',
  };
}
