import { isObject, own, show } from '../json.js';
import { type ParsedForm, parseFormSchema } from '../schema/parse.js';
import { formFindings, structuralFindings } from './form-rules.js';
import type { LintContext } from './identifiers.js';
import { messageFindings } from './message.js';
import { type Finding, finding } from './rules.js';
import { urlFindings } from './url.js';

/**
 * Checks an elicitation request against every rule of the catalogue that can be judged from the
 * request alone: EK02, EK03, EK06, EK07, EK09, EK10, EK11, EK14, EK15. Accepts any JSON; never
 * throws. For EK11 the message is read beside its own form (a field key or option value in it is
 * the server's word, quoted or not) and `context.given`, the words the person or the call supplied.
 *
 * @example
 * const findings = lint({ message: 'Sign in', requestedSchema: { type: 'object', properties: { password: { type: 'string' } } } });
 * // → [{ rule: 'EK09', severity: 'error', field: 'password', ... }, { rule: 'EK07', ... }, { rule: 'EK11', ... }]
 * lint({ message: 'Type order_items to delete all its rows.', requestedSchema }, { given: [args.sql] });
 * // → no EK11 for "order_items" when the caller's SQL named that table
 */
export function lint(request: unknown, context: LintContext = {}): Finding[] {
  if (!isObject(request)) {
    return [
      finding(
        'EK03',
        `the request is ${show(request)}, not an object`,
        'Send {message, requestedSchema} or {mode: "url", message, url}.',
      ),
    ];
  }
  const rawMessage = own(request, 'message');
  const message = typeof rawMessage === 'string' ? rawMessage : '';
  const mode = own(request, 'mode') ?? 'form';
  const parsed = mode === 'form' ? parseFormSchema(own(request, 'requestedSchema')) : undefined;
  const out: Finding[] = [];
  if (typeof rawMessage !== 'string') {
    out.push(finding('EK11', 'the request has no message', 'Every elicitation needs a message a person can read.'));
  } else {
    out.push(...messageFindings(message, parsed ? { ...context, form: parsed.schema } : context));
  }
  if (mode === 'url') {
    out.push(...urlFindings(own(request, 'url')));
    return out;
  }
  // Parsed exactly when the mode is form.
  if (!parsed) {
    out.push(finding('EK03', `the request has mode ${show(mode)}`, 'Use mode "form" (or omit it) or "url".'));
    return out;
  }
  out.push(...schemaFindings(message, parsed));
  return out;
}

/**
 * The rules a form is judged by on its own, before any message exists: every rule of `lint` but
 * EK11 (the message, judged with the call's own words where it is asked). What `defineTool`
 * checks each form with; it never reads or compiles the message rules.
 *
 * @example
 * lintForm({ type: 'object', properties: { password: { type: 'string' } } });
 * // → [{ rule: 'EK09', severity: 'error', field: 'password', ... }, { rule: 'EK07', ... }]
 */
export function lintForm(requestedSchema: unknown): Finding[] {
  return schemaFindings('', parseFormSchema(requestedSchema));
}

function schemaFindings(message: string, { schema, problems }: ParsedForm): Finding[] {
  // An empty form is EK02 only when the schema was otherwise well formed.
  const findings = formFindings(message, schema);
  return [
    ...structuralFindings(problems),
    ...(problems.length > 0 ? findings.filter((f) => f.rule !== 'EK02') : findings),
  ];
}

/**
 * True when any finding is an error.
 *
 * @example
 * if (hasErrors(lint(request))) throw new Error('this form would break the rules');
 */
export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === 'error');
}
