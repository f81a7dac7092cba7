import {
  applyDefaults,
  type Coerced,
  type ContentValue,
  coerceValue,
  type FieldModel,
  type FormContent,
  type FormSchema,
  type Issue,
  type Validator,
} from '@elicitkit/form';

/**
 * What a field's control holds: the typed text (text-like and number kinds; an ISO string for
 * date-time), a checkbox state, the chosen option, or the chosen options.
 */
export type Draft = string | boolean | string[] | undefined;

export type Drafts = Readonly<Record<string, Draft>>;

/** Problems found in an answer, by the field they belong to. */
export interface Grouped {
  byField: ReadonlyMap<string, Issue[]>;
  /** Problems about no field of this form (the whole answer, an unknown key). */
  general: Issue[];
}

/** The drafts judged by the form's validator: problems, or the content to send. */
export interface Checked extends Grouped {
  /** Present only when there is no problem at all: defaults applied, validated. */
  content?: FormContent;
}

/** Each control starts from the previous answer (when re-asked), else the default. */
export function initialDrafts(fields: readonly FieldModel[], previous: FormContent | undefined): Record<string, Draft> {
  const drafts: Record<string, Draft> = {};
  for (const field of fields) {
    const start: ContentValue | undefined = previous?.[field.name] ?? field.default;
    drafts[field.name] = draftOf(field, start);
  }
  return drafts;
}

function draftOf(field: FieldModel, value: ContentValue | undefined): Draft {
  switch (field.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'select':
      return typeof value === 'string' ? value : undefined;
    case 'multiselect':
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    default:
      return value === undefined || Array.isArray(value) ? '' : String(value);
  }
}

/** A control's draft as the field's value, read with `coerceValue` like every other renderer. */
export function readDraft(field: FieldModel, draft: Draft): Coerced {
  switch (field.kind) {
    case 'boolean':
      // An untouched checkbox of a required field reads as "no": the person saw it unchecked.
      return { ok: true, value: typeof draft === 'boolean' ? draft : field.required ? false : undefined };
    case 'select':
      return { ok: true, value: typeof draft === 'string' && draft !== '' ? draft : undefined };
    case 'multiselect': {
      const chosen = Array.isArray(draft) ? draft : [];
      const ordered = field.options.map((o) => o.value).filter((v) => chosen.includes(v));
      // Choosing nothing for an optional field leaves it out, rather than sending [].
      return { ok: true, value: ordered.length === 0 && !field.required ? undefined : ordered };
    }
    default:
      return coerceValue(field, typeof draft === 'string' ? draft : '');
  }
}

/**
 * Judges the drafts twice with the form's own validator: as the person typed them (so a cleared
 * required field is reported, not silently refilled) and as they will be sent, defaults applied.
 */
export function checkDrafts(
  fields: readonly FieldModel[],
  schema: FormSchema,
  check: Validator,
  drafts: Drafts,
): Checked {
  const typed: FormContent = {};
  const unreadable = new Set<string>();
  const issues: Issue[] = [];
  for (const field of fields) {
    const read = readDraft(field, drafts[field.name]);
    if (!read.ok) {
      unreadable.add(field.name);
      issues.push({ path: [field.name], code: 'type', message: read.message });
    } else if (read.value !== undefined) typed[field.name] = read.value;
  }
  const asTyped = check(typed);
  if (!asTyped.ok) issues.push(...asTyped.issues.filter((i) => !unreadable.has(String(i.path[0]))));
  if (issues.length === 0) {
    const sent = check(applyDefaults(schema, typed));
    if (sent.ok) return { byField: new Map(), general: [], content: sent.value };
    issues.push(...sent.issues);
  }
  return groupIssues(fields, issues);
}

/** Sorts issues (the validator's, a server's 400) under the fields they name. */
export function groupIssues(fields: readonly FieldModel[], issues: readonly Issue[]): Grouped {
  const names = new Set(fields.map((f) => f.name));
  const byField = new Map<string, Issue[]>();
  const general: Issue[] = [];
  for (const issue of issues) {
    const name = issue.path[0];
    if (typeof name === 'string' && names.has(name)) byField.set(name, [...(byField.get(name) ?? []), issue]);
    else general.push(issue);
  }
  return { byField, general };
}
