/** Lint rules about one field that several kinds share; each kind's module decides which apply to it. */
import type { FieldBase } from '../kinds/spec.js';
import { type Finding, finding } from './rules.js';
import { findTerm, SECRETS } from './words.js';

/** EK09: a field a person types into whose name or title names a secret. */
export function secretFinding(f: FieldBase, title: string | undefined): Finding[] {
  const term = findTerm(f.name, SECRETS) ?? findTerm(title ?? '', SECRETS);
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

/** EK07 for every kind: a field without a title shows people its raw key. */
export function untitledFinding(f: FieldBase, title: string | undefined): Finding[] {
  if (title !== undefined && title.trim() !== '') return [];
  return [
    finding(
      'EK07',
      `field "${f.name}" has no title, so people see the raw key`,
      `Add a title a person understands, e.g. "${f.label}".`,
      f.name,
    ),
  ];
}

/** EK07 for the choice kinds: options without display titles. */
export function untitledOptionsFinding(f: FieldBase & { titled: boolean }, fix: string): Finding[] {
  if (f.titled) return [];
  return [finding('EK07', `options of "${f.name}" have no display titles`, fix, f.name)];
}
