import type { Check } from './issues.js';
import type { MissingArgument } from './outcome.js';

/** What `ask()` takes besides the question's key. */
export interface AskOptions<T> {
  /** What the person reads: who wants what, and why. */
  message: string;
  /** Business validation after the shape check; failures give `invalid` and the handler never sees the value. */
  check?: Check<T>;
  /** How long to wait for the person, 1 ms to 2^31-1 ms (a `RangeError` otherwise). Default: the kit's (10 minutes). */
  timeoutMs?: number;
  /** What to tell the caller when the client cannot ask; default: the form's fields. */
  fallback?: MissingArgument[];
  /**
   * Whether to shape the form for a known client's quirks (a boolean asked as a Yes/No choice in
   * Trae, one line of text in a text-only Cline). Default true; `false` sends this form as declared
   * to every client (the answer then comes back as the client gives it, and the form checks it).
   */
  adaptToClient?: boolean;
  /**
   * What the answer is about beyond what the question shows: a version, a content hash, an id the
   * message leaves out. On 2026-07-28 each round builds the question again; an answer given while
   * `about` said something else was given about something else, so it does not count and the
   * question is asked again (as when its text changes). Compared as it is, by its text.
   *
   * @example
   * ask('resolution', { message, form, about: `${localHash} ${remoteHash}` })
   */
  about?: string;
}

/** What `askUrl()` takes besides the question's key. */
export interface AskUrlOptions {
  message: string;
  /** An https URL (or http on loopback) to a page the server controls. */
  url: string;
  /**
   * Whether the out-of-band flow has finished: polled after the person consents (`final: false`),
   * and asked once more with `final: true` when the question ends any other way than `accept` or
   * `pending` (declined, cancelled, timed out, the call cancelled while the page was open, a link
   * that never held still). After that last question nothing waits for the flow: a page that
   * could still be finished must be closed by the same step that answers it (one transaction:
   * close what is open, then read whether it finished), or a submit landing between the answer and
   * the closing makes something the call reports was not made. A check that throws, or answers
   * anything but `true`, counts as not finished (a poll's error does not end the call).
   *
   * @example
   * isComplete: ({ final }) => (final ? links.closeAndCheck(id) : links.finished(id))
   */
  isComplete: (check: { final: boolean }) => boolean | Promise<boolean>;
  /** How long to wait for the person to respond to the request (1 to 2^31-1 ms). Default: the kit's timeout. */
  timeoutMs?: number;
  /** How long to wait, after consent, for the flow to finish before answering `pending` (0 to 2^31-1 ms). */
  waitMs?: number;
  fallback?: MissingArgument[];
  /**
   * What the answer is about beyond what the question shows: a version, a content hash, an id the
   * message leaves out. On 2026-07-28 each round builds the question again; an answer given while
   * `about` said something else was given about something else, so it does not count and the
   * question is asked again (as when its text changes). Compared as it is, by its text.
   *
   * @example
   * askUrl('password', { message, url, isComplete, about: registrationId })
   */
  about?: string;
}
