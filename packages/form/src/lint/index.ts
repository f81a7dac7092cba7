import { isObject, own, show } from '../json.js';
import { parseFormSchema } from '../schema/parse.js';
import { formFindings, structuralFindings } from './form-rules.js';
import { messageFindings } from './message.js';
import { type Finding, finding } from './rules.js';
import { urlFindings } from './url.js';

/**
 * Checks an elicitation request against every rule of the catalogue that can be judged from the
 * request alone: EK02, EK03, EK06, EK07, EK09, EK10, EK11, EK14, EK15. Accepts any JSON; never
 * throws.
 *
 * @example
 * const findings = lint({ message: 'Sign in', requestedSchema: { type: 'object', properties: { password: { type: 'string' } } } });
 * // → [{ rule: 'EK09', severity: 'error', field: 'password', ... }, { rule: 'EK07', ... }, { rule: 'EK11', ... }]
 */
export function lint(request: unknown): Finding[] {
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
  const out: Finding[] = [];
  if (typeof rawMessage !== 'string') {
    out.push(finding('EK11', 'the request has no message', 'Every elicitation needs a message a person can read.'));
  } else {
    out.push(...messageFindings(message));
  }
  if (mode === 'url') {
    out.push(...urlFindings(own(request, 'url')));
    return out;
  }
  if (mode !== 'form') {
    out.push(finding('EK03', `the request has mode ${show(mode)}`, 'Use mode "form" (or omit it) or "url".'));
    return out;
  }
  const { schema, problems } = parseFormSchema(own(request, 'requestedSchema'));
  out.push(...structuralFindings(problems));
  // An empty form is EK02 only when the schema was otherwise well formed.
  const findings = formFindings(message, schema);
  out.push(...(problems.length > 0 ? findings.filter((f) => f.rule !== 'EK02') : findings));
  return out;
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
