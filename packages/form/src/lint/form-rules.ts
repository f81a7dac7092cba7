import { describeFields, type FieldModel } from '../fields.js';
import { specOf } from '../kinds/registry.js';
import { defaultProblems } from '../schema/defaults-check.js';
import type { SchemaProblem } from '../schema/problems.js';
import type { FormSchema } from '../wire.js';
import { confirmingCheckbox } from './confirmation.js';
import { messageSecretFindings, untitledFinding } from './field-rules.js';
import { type Finding, finding, type RuleCode } from './rules.js';
import { DESTRUCTIVE, findTerm } from './words.js';

const RULE_OF: Partial<Record<SchemaProblem['code'], RuleCode>> = { bad_default: 'EK15', no_properties: 'EK02' };

/** EK03 (and EK15 for wrongly typed defaults) from the structural problems of a schema. */
export function structuralFindings(problems: readonly SchemaProblem[]): Finding[] {
  return problems.map((p) => finding(RULE_OF[p.code] ?? 'EK03', p.message, p.fix, p.field));
}

/** The rules judged from the (valid part of the) form itself. */
export function formFindings(message: string, schema: FormSchema): Finding[] {
  const fields = describeFields(schema);
  const out: Finding[] = [];
  if (fields.length === 0) {
    out.push(
      finding(
        'EK02',
        'the form has no fields',
        'Ask for at least one value; to tell the person something, return it in the tool result instead.',
      ),
    );
  }
  for (const f of fields) out.push(...halfCharacters(f), ...fieldFindings(f, schema));
  out.push(...messageSecretFindings(message, fields, out));
  out.push(...defaultProblems(schema).map((p) => finding('EK15', p.message, p.fix, p.field)));
  out.push(...checkboxOnly(message, fields));
  return out;
}

/** Half of a character: a UTF-16 surrogate not paired with its other half (with `u`, a pair is one code point). */
const HALF = /\p{Cs}/u;

/**
 * EK03: half of a character (a lone UTF-16 surrogate) in a field's name or a choice's value. No
 * answer can carry it — UTF-8 cannot write it, and `validate` refuses it in an answer — so the
 * person could fill the form in and never send it. (In a title or help it is only shown.)
 */
function halfCharacters(f: FieldModel): Finding[] {
  const fix = 'Send names and values as whole characters (a surrogate pair together, or none).';
  if (HALF.test(f.name))
    return [
      finding(
        'EK03',
        `the field name holds half of a character (${JSON.stringify(f.name)}): no answer can carry it`,
        fix,
        f.name,
      ),
    ];
  const options = 'options' in f ? f.options : [];
  const half = options.find((o) => HALF.test(o.value));
  return half
    ? [
        finding(
          'EK03',
          `a choice holds half of a character (${JSON.stringify(half.value)}): no answer can carry it`,
          fix,
          f.name,
        ),
      ]
    : [];
}

/**
 * One field's findings: its kind's own rules, then EK07 — the missing title (every kind) before
 * the kind's untitled options.
 */
function fieldFindings(f: FieldModel, schema: FormSchema): Finding[] {
  const field = schema.properties[f.name];
  if (!field) return [];
  const own = specOf(f).lint(f, field);
  return [
    ...own.filter((x) => x.rule !== 'EK07'),
    ...untitledFinding(f, field.title),
    ...own.filter((x) => x.rule === 'EK07'),
  ];
}

/** EK10: a destructive request whose only safeguard is a checkbox. */
function checkboxOnly(message: string, fields: readonly FieldModel[]): Finding[] {
  const confirm = fields.find((f) => confirmingCheckbox(f) !== undefined);
  if (!confirm) return [];
  const typed = fields.some((f) => f.kind === 'text');
  if (typed) return [];
  const context = [message, ...fields.map((f) => `${f.label} ${f.help ?? ''}`)].join('\n');
  const term = findTerm(context, DESTRUCTIVE);
  if (!term) return [];
  return [
    finding(
      'EK10',
      `a destructive action ("${term}") is confirmed by the checkbox "${confirm.name}" alone`,
      'Add a typed confirmation (e.g. the table or service name, checked on the server) next to the checkbox.',
      confirm.name,
    ),
  ];
}
