import type { Coerced, ContentValue, FieldModel, FormContent, Issue, Validator } from '@elicitkit/form';
import type { Draft } from './drafts.js';
import { viewOf } from './field-view.js';

export type { Draft };

export type Drafts = Readonly<Record<string, Draft>>;

/** Problems found in an answer, by the field they belong to. */
export interface Grouped {
  byField: ReadonlyMap<string, Issue[]>;
  /** Problems about no field of this form (the whole answer, an unknown key). */
  general: Issue[];
}

/** The drafts judged by the form's validator: problems, or the content to send. */
export interface Checked extends Grouped {
  /** Present only when there is no problem at all: what the controls hold, validated. */
  content?: FormContent;
}

/**
 * Each control starts from the default, or, when re-asked, from the previous answer alone: a field
 * the person had cleared starts empty again, not refilled.
 */
export function initialDrafts(fields: readonly FieldModel[], previous: FormContent | undefined): Record<string, Draft> {
  const drafts: Record<string, Draft> = {};
  for (const field of fields) {
    const start: ContentValue | undefined = previous
      ? Object.hasOwn(previous, field.name)
        ? previous[field.name]
        : undefined
      : field.default;
    drafts[field.name] = draftOf(field, start);
  }
  return drafts;
}

function draftOf(field: FieldModel, value: ContentValue | undefined): Draft {
  return viewOf(field).draft.toDraft(field, value);
}

/** A control's draft as the field's value, read by the rules of its kind's control. */
export function readDraft(field: FieldModel, draft: Draft): Coerced {
  return viewOf(field).draft.read(field, draft);
}

/**
 * Judges the drafts with the form's own validator as the person left them: the controls start from
 * the defaults, so what is shown is what is sent. A cleared required field is reported, a cleared
 * optional one is left out, and neither is refilled with its default behind the person's back.
 */
export function checkDrafts(fields: readonly FieldModel[], check: Validator, drafts: Drafts): Checked {
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
  const sent = check(typed);
  if (sent.ok && issues.length === 0) return { byField: new Map(), general: [], content: sent.value };
  if (!sent.ok) issues.push(...sent.issues.filter((i) => !unreadable.has(String(i.path[0]))));
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
