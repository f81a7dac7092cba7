import { ElicitkitError } from '@elicitkit/form';

/** `attach` was misused: called after `connect()`, or given a policy that cannot work. */
export class AttachError extends ElicitkitError {
  constructor(code: 'ALREADY_CONNECTED' | 'BAD_POLICY', message: string) {
    super(code, message);
    this.name = 'AttachError';
  }
}

/**
 * A scripted renderer could not answer: it ran out of answers, or the next answer does not fit
 * the question (a form answer for a URL prompt). `attach` answers `cancel` and reports it.
 */
export class ScriptError extends ElicitkitError {
  /** The position (0-based) of the elicitation in the script. */
  readonly index: number;

  constructor(code: 'ANSWERS_EXHAUSTED' | 'ANSWER_MISMATCH', index: number, message: string) {
    super(code, message);
    this.name = 'ScriptError';
    this.index = index;
  }
}

/** A pending registry was asked for something it cannot do (a question that could never be answered). */
export class RegistryError extends ElicitkitError {
  constructor(code: 'BAD_TIMEOUT', message: string) {
    super(code, message);
    this.name = 'RegistryError';
  }
}
