import { type AnyForm, type Finding, lint, lintForm } from '@elicitkit/form';

// Only errors stop an ask, and EK11 (the message, read beside the form and the call's words) is a
// warning: it is judged where it is reported — by doctor and by the client showing the question —
// so the call's arguments need not reach this module.

/** Lint errors of each form seen, by identity. */
const FORM_LINT = new WeakMap<AnyForm, readonly Finding[]>();

/** A form's error-level findings. Form rules do not depend on the message, so each form is linted once per process. */
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
