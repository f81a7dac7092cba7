import { describeFields, type FieldModel, type FormContent } from '@elicitkit/form';

/**
 * One way of answering a question that may lead the tool somewhere else: accepting with one
 * field set to one value (an option of a select, a boolean either way, a subset of a
 * multi-select), declining, or cancelling. Free text, numbers and dates have no branches: doctor
 * sends one sample value for them.
 */
export type Branch = { action: 'accept'; field: string; value: FormContent[string] } | { action: 'decline' | 'cancel' };

/** A question as doctor meets it: its mode and the request's params. */
export interface Question {
  mode: 'form' | 'url';
  params: Record<string, unknown>;
}

/**
 * What a question is across calls: a form by its fields (`form: confirmed, ticket`, sorted) or
 * `url`. Messages vary from call to call; the fields do not.
 *
 * @example
 * questionKey({ mode: 'form', params: { requestedSchema: { properties: { b: {}, a: {} } } } }) // → 'form: a, b'
 */
export function questionKey(q: Question): string {
  return q.mode === 'url' ? 'url' : `form: ${[...fieldsOf(q.params)].sort().join(', ')}`;
}

/** A request's mode, as a handler receives it (no `mode` is form). */
export function modeOf(params: Record<string, unknown>): 'form' | 'url' {
  return params.mode === 'url' ? 'url' : 'form';
}

/**
 * Every branch of a question: per field, each option of a select, a boolean both ways, and for
 * a multi-select its default (or first options), none (where allowed), all (where allowed) and
 * each option alone; then decline and cancel. A URL question has decline and cancel only:
 * doctor never consents to open a page.
 *
 * @example
 * branchesOf({ mode: 'form', params: { requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } })
 * // → [{ action: 'accept', field: 'ok', value: false }, { …, value: true }, { action: 'decline' }, { action: 'cancel' }]
 */
export function branchesOf(q: Question): Branch[] {
  const fields = q.mode === 'form' ? describeFields(q.params.requestedSchema) : [];
  return [...fields.flatMap(fieldBranches), { action: 'decline' }, { action: 'cancel' }];
}

function fieldBranches(field: FieldModel): Branch[] {
  const values = valuesOf(field);
  const seen = new Set<string>();
  const out: Branch[] = [];
  for (const value of values) {
    const id = valueId(value);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ action: 'accept', field: field.name, value });
  }
  return out;
}

function valuesOf(field: FieldModel): FormContent[string][] {
  switch (field.kind) {
    case 'select':
      return field.options.map((o) => o.value);
    case 'boolean': {
      const first = field.default === true;
      return [first, !first];
    }
    case 'multiselect': {
      const all = field.options.map((o) => o.value);
      const min = field.minItems ?? 0;
      const max = field.maxItems ?? all.length;
      const fits = (subset: string[]) => subset.length >= min && subset.length <= max;
      const first = Array.isArray(field.default) ? field.default : all.slice(0, Math.max(min, 1));
      const subsets = [first, [], all, ...all.map((v) => [v])];
      return subsets.filter((s, i) => i === 0 || fits(s));
    }
    default:
      return [];
  }
}

/** The same branch: the same answer, and for an accept the same field and value (a subset in any order). */
export function sameBranch(a: Branch, b: Branch): boolean {
  if (a.action !== b.action) return false;
  if (a.action !== 'accept' || b.action !== 'accept') return true;
  return a.field === b.field && valueId(a.value) === valueId(b.value);
}

/** `env=prod`, `confirmed=true`, `regions=[eu, us]`, `decline`, `cancel`. */
export function branchLabel(b: Branch): string {
  if (b.action !== 'accept') return b.action;
  const shown = Array.isArray(b.value) ? `[${b.value.join(', ')}]` : String(b.value);
  return `${b.field}=${shown}`;
}

/**
 * The branches one answer took: a decline or cancel is its own branch; an accept takes, for each
 * field with branches, the branch of the value it sent.
 */
export function branchesTaken(
  branches: readonly Branch[],
  answer: { action: string; content?: FormContent | undefined },
): Branch[] {
  if (answer.action === 'decline' || answer.action === 'cancel')
    return branches.filter((b) => b.action === answer.action);
  if (answer.action !== 'accept' || answer.content === undefined) return [];
  const content = answer.content;
  return branches.filter(
    (b) =>
      b.action === 'accept' &&
      Object.hasOwn(content, b.field) &&
      valueId(content[b.field] as FormContent[string]) === valueId(b.value),
  );
}

/** A value's identity for comparison: a multi-select's items in any order are one subset. */
function valueId(value: FormContent[string]): string {
  return JSON.stringify(Array.isArray(value) ? [...value].sort() : value);
}

/** A branch's identity, for maps and sets. */
export function branchId(b: Branch): string {
  return b.action === 'accept' ? `accept\0${b.field}\0${valueId(b.value)}` : b.action;
}

/**
 * Interleaves the accept branches field by field (each field's second value before any field's
 * third), so a budget spent part-way still tried something of every field.
 */
export function interleaved(branches: readonly Branch[]): Branch[] {
  const byField = new Map<string, Branch[]>();
  const others: Branch[] = [];
  for (const b of branches) {
    if (b.action !== 'accept') others.push(b);
    else byField.set(b.field, [...(byField.get(b.field) ?? []), b]);
  }
  const columns = [...byField.values()];
  const out: Branch[] = [];
  for (let i = 0; columns.some((c) => i < c.length); i++) for (const c of columns) if (c[i]) out.push(c[i] as Branch);
  return [...out, ...others];
}

/** The property names of a raw form request, as sent. */
export function fieldsOf(params: Record<string, unknown>): string[] {
  const schema = params.requestedSchema;
  const properties =
    typeof schema === 'object' && schema !== null ? (schema as { properties?: unknown }).properties : undefined;
  return typeof properties === 'object' && properties !== null && !Array.isArray(properties)
    ? Object.keys(properties)
    : [];
}
