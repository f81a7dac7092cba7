import type { UrlWarningCode } from '@elicitkit/client';
import type { FieldModel, IssueCode } from '@elicitkit/form';

/**
 * Every word the components show. Pass `LABELS_ZH`, or your own object (spread one of the two and
 * replace what you need). Functions receive already-cleaned text. Labels hold functions, so choose
 * them inside a client component: they cannot cross from a React Server Component as props.
 *
 * @example
 * const labels: Labels = { ...LABELS_EN, submit: 'Send answer', timeLeft: (clock) => `${clock} left` };
 */
export interface Labels {
  /** The `lang` attribute of the dialogs, so fonts and line breaking suit the language. */
  lang: string;
  /** The heading: who asks. */
  asks: (server: string) => string;
  unidentifiedServer: string;
  /** Heading of the URL consent dialog. */
  asksToOpen: (server: string) => string;
  submit: string;
  sending: string;
  decline: string;
  cancel: string;
  open: string;
  /** Explains the `*` marks. */
  requiredNote: string;
  /** The empty choice of an optional single select. */
  noChoice: string;
  /** The placeholder of a required `<select>` without a default. */
  choose: string;
  timeLeft: (clock: string) => string;
  expired: string;
  secretTitle: string;
  secretBody: (fields: string) => string;
  findingsTitle: string;
  previousRejected: string;
  serverRejected: string;
  /** The summary shown when Submit finds problems. */
  fixErrors: (count: number) => string;
  /** Constraint hints drawn under a field. */
  hint: {
    chars: (min: number | undefined, max: number | undefined) => string;
    range: (min: number | undefined, max: number | undefined, whole: boolean) => string;
    choices: (min: number | undefined, max: number | undefined) => string;
    email: string;
    uri: string;
    localTime: (offset: string) => string;
    /** The one format a date is typed in (the calendar button fills it in the same format). */
    date: string;
  };
  /** The calendar button beside a date field. */
  calendar: string;
  /** Under a confirmation checkbox. */
  confirmationNote: string;
  /** Shown, instead of sending, when Submit finds confirmations unticked (a second Submit sends). */
  confirmationUnticked: (count: number) => string;
  host: string;
  /** Beside the registrable domain: who owns the page. */
  site: string;
  urlNote: string;
  /** Instead of Open, for a link that is not a web page (a prompt built without the client's checks). */
  notOpenable: string;
  warningsTitle: string;
  /** After consent, until the server says the page is done (2025-11-25): where to finish. */
  waitingOnPage: (host: string) => string;
  /** Once the server said the person finished on the page. */
  finishedOnPage: (host: string) => string;
  /** Closes the notice of a page being finished. */
  close: string;
  /** A URL warning in this language; the English message comes from `@elicitkit/client` (drawn through `plainText`). */
  urlWarning: (code: UrlWarningCode, message: string) => string;
  /**
   * A validation problem in this language, or `undefined` to show the validator's own (English)
   * sentence. `code: 'type'` also covers text that could not be read as the field's kind. It may
   * quote `field.label` as the server sent it: what it returns is drawn through `plainText`.
   */
  issue: (code: IssueCode, field: FieldModel) => string | undefined;
  /**
   * Why a question cannot be answered as the server sent it (`FormPrompt.unanswerable`): each
   * field (its label, already made plain) and whether its name or a choice holds half of a
   * character. Optional, so labels made for an earlier version still type-check: English is used
   * without it.
   */
  unanswerable?: (found: readonly { field: string; where: 'name' | 'choice' }[]) => string;
}

const between = (min: number | undefined, max: number | undefined, unit: string): string => {
  if (min !== undefined && max !== undefined) return `${min}–${max}${unit}`;
  if (min !== undefined) return `at least ${min}${unit}`;
  return max !== undefined ? `at most ${max}${unit}` : '';
};

/**
 * English labels (the default).
 *
 * @example
 * <ElicitationForm labels={{ ...LABELS_EN, submit: 'Send' }} … />
 */
export const LABELS_EN: Labels = {
  lang: 'en',
  asks: (server) => `${server} asks`,
  unidentifiedServer: 'An unidentified server',
  asksToOpen: (server) => `${server} wants you to open a link`,
  submit: 'Submit',
  sending: 'Sending…',
  decline: 'Decline',
  cancel: 'Cancel',
  open: 'Open link',
  requiredNote: 'Fields marked * are required.',
  noChoice: 'No answer',
  choose: 'Choose…',
  timeLeft: (clock) => `Time left ${clock}`,
  expired: 'Expired: this question can no longer be answered; the server treats it as cancelled.',
  secretTitle: 'This form asks for a secret',
  secretBody: (fields) =>
    `${fields}: servers should never ask for passwords, API keys or tokens in a form. Decline unless you are certain.`,
  findingsTitle: 'This form breaks Elicitkit rules',
  previousRejected: 'Your previous answer was not accepted',
  serverRejected: 'The server did not accept this answer',
  fixErrors: (count) => `Not sent yet: fix ${count === 1 ? 'the field' : `the ${count} fields`} marked below.`,
  hint: {
    chars: (min, max) => {
      const range = between(min, max, ' characters');
      return range === '' ? '' : range.charAt(0).toUpperCase() + range.slice(1);
    },
    range: (min, max, whole) =>
      [whole ? 'Whole number' : 'Number', between(min, max, '')].filter((s) => s !== '').join(', '),
    choices: (min, max) => {
      const range = between(min, max, max === 1 && min === undefined ? ' choice' : ' choices');
      return range === '' ? '' : `Choose ${range}`;
    },
    email: 'An email address, like name@example.com',
    uri: 'A full address, like https://example.com',
    localTime: (offset) => `Your local time (${offset === 'Z' ? 'UTC' : `UTC${offset}`})`,
    date: 'YYYY-MM-DD, e.g. 2026-11-30',
  },
  calendar: 'Pick a date',
  confirmationNote: 'Tick to confirm: without it the request is refused.',
  confirmationUnticked: (count) =>
    `Not sent yet: ${count === 1 ? 'a confirmation is' : `${count} confirmations are`} unticked, and the server refuses the request without ${count === 1 ? 'it' : 'them'}. Tick ${count === 1 ? 'it' : 'them'}, press Submit again to send as it is, or Decline.`,
  host: 'Host',
  site: 'Site (who owns the page)',
  urlNote: 'Nothing is loaded until you choose Open.',
  notOpenable: 'This link cannot be opened: only https and http links are opened.',
  warningsTitle: 'Careful',
  waitingOnPage: (host) => `Finish on the page at ${host}, opened in a new tab.`,
  finishedOnPage: (host) => `Finished on the page at ${host}.`,
  close: 'Close',
  urlWarning: (_code, message) => message,
  issue: () => undefined,
  unanswerable: (found) =>
    `This question cannot be answered as sent: ${found
      .map((u) => `${u.where === 'name' ? 'the name' : 'a choice'} of “${u.field}” holds half of a character`)
      .join('; ')}, which no answer can carry. Decline it or cancel it.`,
};
