/** Why an answer does not fit its form. Renderers switch on `code`; `message` is for people. */
export type IssueCode =
  | 'not_object'
  | 'required'
  | 'unknown_field'
  | 'type'
  | 'too_short'
  | 'too_long'
  | 'format'
  | 'too_small'
  | 'too_big'
  | 'not_integer'
  | 'not_in_options'
  | 'too_few'
  | 'too_many'
  | 'duplicate'
  | 'bad_schema'
  | 'empty'
  | 'custom'
  /** 2026-07-28: the question changed before each of its answers arrived, too often for any to count. */
  | 'question_unstable'
  /**
   * 2026-07-28: the person answered a question the tool, run again, no longer asked on its way to
   * its side effect (what it found had changed): nothing ran on an answer about something else.
   */
  | 'answer_unused';

export interface Issue {
  /** Field name first, then the item index for multi-select values; empty for the whole answer. */
  path: (string | number)[];
  code: IssueCode;
  /** A full sentence naming the field by its label, e.g. `"Release ticket" needs at least 4 characters.` */
  message: string;
}

/** The outcome of validating an answer: the clean value, or every issue found. */
export type Validation<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/**
 * Problems of one kind listed one by one (unknown keys, wrong choices of one field); past this,
 * one more issue says how many others there are. A person reads the first few, a server sends
 * them back, and a huge answer must not turn into a larger list of issues.
 */
export const MAX_LISTED = 20;

/** The one issue that counts the unknown keys past the first `MAX_LISTED`. */
export function moreUnknownKeys(count: number): Issue {
  return issue([], 'unknown_field', `And ${count} more keys that are not fields of this form.`);
}

export function issue(path: (string | number)[], code: IssueCode, message: string): Issue {
  return { path, code, message };
}

/**
 * One line per issue, for logs and text results.
 *
 * @example
 * if (!result.ok) console.error(formatIssues(result.issues)); // - "Release ticket" needs at least 4 characters.
 */
export function formatIssues(issues: readonly Issue[]): string {
  return issues.map((i) => `- ${i.message}`).join('\n');
}
