/** The label a person reads for each field, and the check that no two are drawn alike. */
import { show } from '../json.js';
import { onScreen, screen } from '../kinds/options.js';
import type { FieldSchema } from '../wire.js';
import { problem, type SchemaProblem } from './problems.js';

/** `releaseTicket` / `release_ticket` → `Release ticket`. */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.length === 0 ? name : words[0]?.toUpperCase() + words.slice(1);
}

/**
 * What a field is shown as: its title, or its key humanized when it has no title or one that
 * draws nothing (blank, or only invisible characters).
 */
export function fieldLabel(name: string, field: Pick<FieldSchema, 'title'>): string {
  const title = field.title;
  return title !== undefined && onScreen(title) !== '' ? title.trim() : humanize(name);
}

/**
 * Fields a person cannot tell apart: a label that draws nothing, or one drawn like an earlier
 * field's (equal up to Unicode form, invisible characters and spacing, or a Latin letter swapped
 * for a Cyrillic or Greek one drawn alike: `drawnAlike`, as options are compared; case is kept). Each problem names the later field, which is left out of the form.
 */
export function fieldLookAlikes(fields: Readonly<Record<string, FieldSchema>>): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const shown: { name: string; label: string }[] = [];
  const seen = screen();
  for (const [name, field] of Object.entries(fields)) {
    const label = fieldLabel(name, field);
    if (onScreen(label) === '') {
      problems.push(
        problem(
          name,
          'bad_title',
          `field ${show(name)} is shown with no label a person can see`,
          'Give the field a title, or a key with letters a person can read.',
        ),
      );
      continue;
    }
    const at = seen(label);
    const first = at === undefined ? undefined : shown[at];
    if (first) {
      problems.push(
        problem(
          name,
          'bad_title',
          `field ${show(name)} is shown as ${show(label)}, which reads as field ${show(first.name)} (${show(first.label)})`,
          'Give every field a title a person can tell apart from the others.',
        ),
      );
      shown.push(first); // keeps indexes in step with seen's; this field is left out
      continue;
    }
    shown.push({ name, label });
  }
  return problems;
}
