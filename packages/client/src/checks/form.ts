import { describeFields, type FieldModel, type Finding, type FormSchema, lint, parseFormSchema } from '@elicitkit/form';
import { messageProblem } from './message.js';
import { type Unanswerable, unanswerable } from './unanswerable.js';
import { invisibleNames, spelled, visible, visibleSchema } from './visible.js';

/**
 * A form request that may be shown: the parsed schema, its field model, lint findings and the
 * fields that ask for secrets.
 *
 * @example
 * const checked = checkFormRequest(params);
 * if (checked.ok && checked.secretFields.length > 0) warn(checked.secretFields);
 */
export interface CheckedForm {
  ok: true;
  schema: FormSchema;
  fields: FieldModel[];
  findings: Finding[];
  /** Fields that ask for a secret (rule EK09). */
  secretFields: string[];
  /** What keeps the question from being answered as sent (half a character in a field's name, a choice…): empty when nothing does. */
  unanswerable: Unanswerable[];
}

/**
 * A form request outside the restricted subset: answer -32602 with `message`.
 *
 * @example
 * if (!checked.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, checked.message);
 */
export interface RejectedForm {
  ok: false;
  /** Every problem with its fix, one per line, for the JSON-RPC error message. */
  message: string;
}

/**
 * Checks a form-mode request before anything is drawn: the schema must be inside the restricted
 * subset (the SDK's own check lets some violations through, e.g. `required` naming a missing
 * field or a default outside its options), then lint runs for the findings a renderer shows.
 * Titles, help and option titles come back without characters that take no room on screen, so
 * what lint judged is what the person reads; a field name with one is refused.
 *
 * @example
 * const checked = checkFormRequest({ message, requestedSchema });
 * if (!checked.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, checked.message);
 */
export function checkFormRequest(request: { message: string; requestedSchema: unknown }): CheckedForm | RejectedForm {
  // Before anything reads it: lint and drawing take time growing with its length.
  const tooLong = messageProblem(request.message);
  if (tooLong) return { ok: false, message: rejection([tooLong]) };
  const parsed = parseFormSchema(request.requestedSchema);
  // Judged as shown: an invisible character splits a word for lint ("Pass\u200bword" asked for a
  // password unseen by the secret check, a pre-ticked "I con\u200bfirm" stayed ticked) while the
  // person reads it whole. Titles and help are shown without them; a field name cannot change.
  // The message too is judged as read (a "pass\u200bword" in it asks for a password all the same).
  const schema = visibleSchema(parsed.schema);
  const problems = [...parsed.problems, ...invisibleNames(schema).map(invisibleName)];
  // Lint sees the fields that parsed, so every problem is reported in one answer.
  const findings = lint({ mode: 'form', message: visible(request.message), requestedSchema: schema });
  // A default that breaks its own field would be pre-filled and then refused (or sent): as malformed
  // as a structural problem, so it is refused the same way.
  const refused = [...problems, ...findings.filter((f) => f.rule === 'EK15')];
  if (refused.length > 0) return { ok: false, message: rejection(refused) };
  const secretFields = [...new Set(findings.flatMap((f) => (f.rule === 'EK09' && f.field ? [f.field] : [])))];
  const shown = untickFlaggedConfirmations(schema, findings);
  return {
    ok: true,
    schema: shown,
    fields: describeFields(shown),
    findings,
    secretFields,
    unanswerable: unanswerable(shown),
  };
}

/**
 * EK06: a confirmation a server pre-ticked is shown unticked, in every renderer (they all draw
 * this field model), and left unticked when the person says nothing (defaults are applied from
 * this schema too). The finding stays, so renderers still say what the server tried.
 */
function untickFlaggedConfirmations(schema: FormSchema, findings: readonly Finding[]): FormSchema {
  const flagged = new Set(findings.flatMap((f) => (f.rule === 'EK06' && f.field ? [f.field] : [])));
  if (flagged.size === 0) return schema;
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([name, property]) =>
      flagged.has(name) && property.type === 'boolean' ? [name, { ...property, default: false }] : [name, property],
    ),
  );
  return { ...schema, properties } as FormSchema;
}

function invisibleName(name: string): { message: string; fix: string } {
  return {
    message: `field "${spelled(name)}" has an invisible character in its name, so it reads as another name`,
    fix: 'Name fields with visible characters only.',
  };
}

/** `text` without the full stops it ends with: counted from the end (`/\.+$/` retries from every dot, time squared in a long run of them). */
function withoutFinalDots(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '.') end--;
  return text.slice(0, end);
}

function rejection(problems: readonly { message: string; fix: string }[]): string {
  // Said to the server and shown to the person: the first problems, the rest counted.
  const lines = problems.slice(0, MAX_PROBLEMS_SAID).map((p) => `- ${withoutFinalDots(p.message)}. ${p.fix}`);
  if (problems.length > MAX_PROBLEMS_SAID) lines.push(`- and ${problems.length - MAX_PROBLEMS_SAID} more problems.`);
  return `The requested form is outside the MCP elicitation schema:\n${lines.join('\n')}`;
}

/** How many of a refused form's problems its refusal names. */
const MAX_PROBLEMS_SAID = 20;
