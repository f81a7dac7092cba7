import { type AnyForm, type Finding, lint, lintForm } from '@elicitkit/form';

// Only errors stop an ask, and EK11 (the message, read beside the form and the call's words) is a
// warning: it is judged where it is reported — by doctor and by the client showing the question —
// so the call's arguments need not reach this module. EK09's reading of the message into a field
// labelled with nothing of its own ("Value") is judged there too: a form is linted here once, alone.

/** Lint errors of each form seen, by identity. */
const FORM_LINT = new WeakMap<AnyForm, readonly Finding[]>();

/** A form's error-level findings, from the form alone, so each form is linted once per process. */
export function formLintErrors(form: AnyForm): readonly Finding[] {
  let errors = FORM_LINT.get(form);
  if (!errors) {
    errors = lintForm(form.schema).filter((f) => f.severity === 'error');
    FORM_LINT.set(form, errors);
  }
  return errors;
}

/** A URL-mode question's error-level findings (a token in the query, plain http off loopback…). */
export function urlLintErrors(message: string, url: string): readonly Finding[] {
  return lint({ mode: 'url', message, url }).filter((f) => f.severity === 'error');
}

/**
 * The longest link a client takes (`MAX_URL_LENGTH` in `@elicitkit/client`, after RFC 9110's
 * 8,000 octets): one longer is refused by it, so it is no page anyone can be sent to.
 */
const MAX_URL_LENGTH = 8_192;

/**
 * Why `url` is no web page a person can be sent to — not an absolute URL, a scheme other than
 * http(s) (`javascript:`, `data:`, `file:`), longer than a client takes — or `undefined` when it
 * is one. Unlike the lint rules, this holds in production too: such a link is never sent.
 *
 * @example
 * notAPage('javascript:alert(1)') // 'uses the javascript: scheme'
 */
export function notAPage(url: unknown): string | undefined {
  if (typeof url !== 'string') return 'has no URL';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not given an absolute URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `uses the ${parsed.protocol} scheme`;
  const length = Math.max(url.length, parsed.href.length);
  if (length > MAX_URL_LENGTH) return `has a URL of ${length} characters, over the ${MAX_URL_LENGTH} a client takes`;
  return undefined;
}
