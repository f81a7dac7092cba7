import { describeFields, type FieldModel } from '../fields.js';
import { defaultProblems } from '../schema/defaults-check.js';
import type { SchemaProblem } from '../schema/problems.js';
import type { FormSchema } from '../wire.js';
import { type Finding, finding, type RuleCode } from './rules.js';
import { CONFIRMATION, DESTRUCTIVE, findTerm, SECRETS } from './words.js';

const TEXT_KINDS = new Set(['text', 'email', 'uri', 'date', 'date-time']);
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
  for (const f of fields) {
    out.push(...secretField(f, schema), ...confirmationDefault(f), ...untitled(f, schema));
  }
  out.push(...defaultProblems(schema).map((p) => finding('EK15', p.message, p.fix, p.field)));
  out.push(...checkboxOnly(message, fields));
  return out;
}

/** EK09: a text or number field whose name or title names a secret. */
function secretField(f: FieldModel, schema: FormSchema): Finding[] {
  if (!TEXT_KINDS.has(f.kind) && f.kind !== 'number' && f.kind !== 'integer') return [];
  const title = schema.properties[f.name]?.title ?? '';
  const term = findTerm(f.name, SECRETS) ?? findTerm(title, SECRETS);
  if (!term) return [];
  return [
    finding(
      'EK09',
      `field "${f.name}" asks for a secret ("${term}") in a form`,
      'Never collect passwords, keys, tokens or payment data in form mode: send the person to a page you serve with URL mode (askUrl) instead.',
      f.name,
    ),
  ];
}

/** EK06: a confirmation checkbox that is already ticked. */
function confirmationDefault(f: FieldModel): Finding[] {
  if (f.kind !== 'boolean' || f.default !== true) return [];
  const term =
    findTerm(f.name, CONFIRMATION) ??
    findTerm(f.label, CONFIRMATION) ??
    (f.help ? findTerm(f.help, CONFIRMATION) : undefined);
  if (!term) return [];
  return [
    finding(
      'EK06',
      `confirmation "${f.name}" defaults to true, so pressing Enter agrees without reading`,
      'Set default: false (or leave it out) so that agreeing takes a deliberate act.',
      f.name,
    ),
  ];
}

/** EK07: fields without a title, and options without display titles. */
function untitled(f: FieldModel, schema: FormSchema): Finding[] {
  const out: Finding[] = [];
  const title = schema.properties[f.name]?.title;
  if (title === undefined || title.trim() === '') {
    out.push(
      finding(
        'EK07',
        `field "${f.name}" has no title, so people see the raw key`,
        `Add a title a person understands, e.g. "${f.label}".`,
        f.name,
      ),
    );
  }
  if ((f.kind === 'select' || f.kind === 'multiselect') && !f.titled) {
    out.push(
      finding(
        'EK07',
        `options of "${f.name}" have no display titles`,
        f.kind === 'select'
          ? 'Use titled options: oneOf: [{const, title}] (field.select with {value, title}).'
          : 'Use titled options: items.anyOf: [{const, title}].',
        f.name,
      ),
    );
  }
  return out;
}

/** EK10: a destructive request whose only safeguard is a checkbox. */
function checkboxOnly(message: string, fields: readonly FieldModel[]): Finding[] {
  const confirm = fields.find(
    (f) => f.kind === 'boolean' && (findTerm(f.name, CONFIRMATION) ?? findTerm(f.label, CONFIRMATION)),
  );
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
