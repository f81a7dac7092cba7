import type { Issue } from '@elicitkit/form';

/** A problem a check found: a sentence, or a sentence tied to a field. */
export type CheckIssue = string | { field?: string; message: string };

/**
 * A business rule on an accepted answer: return nothing (`undefined` or `[]`) when it is fine, or
 * what is wrong.
 */
export type Check<T> = (
  value: T,
) => CheckIssue[] | CheckIssue | undefined | Promise<CheckIssue[] | CheckIssue | undefined>;

/** What a check returned, as the issue data every result and audit record carries. */
export function toIssues(found: readonly (CheckIssue | Issue)[] | CheckIssue | Issue | undefined | null): Issue[] {
  const list = found === undefined || found === null ? [] : Array.isArray(found) ? found : [found];
  return list.map((item: CheckIssue | Issue) => {
    if (typeof item === 'string') return { path: [], code: 'custom', message: item };
    if ('path' in item && Array.isArray(item.path)) return item as Issue;
    const { field, message } = item as { field?: string; message: string };
    return { path: field ? [field] : [], code: 'custom', message };
  });
}
