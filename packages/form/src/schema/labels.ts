/** The label a person reads for each field, and the check that no two are drawn alike. */
import { show } from '../json.js';
import { breaksLine, onScreen, screen } from '../kinds/options.js';
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

/** Runs of spaces (the zero-width no-break space, which JavaScript counts as one, draws nothing). */
const SPACES = /[^\S\ufeff]+/gu;

/**
 * What a field is shown as: its title, a run of spaces drawn as one (so a title cannot push its
 * end out of sight behind another field's words), or its key humanized when it has no title or
 * one that draws nothing (blank, or only invisible characters).
 */
export function fieldLabel(name: string, field: Pick<FieldSchema, 'title'>): string {
  const title = field.title;
  return title !== undefined && onScreen(title) !== '' ? title.replace(SPACES, ' ').trim() : humanize(name);
}

/**
 * Fields a person cannot tell apart: a label that draws nothing, a title that breaks the line (its
 * second line reads as another field), or a label drawn like an earlier field's (equal up to
 * Unicode form, compatibility characters, invisible characters, spacing and case, or a Latin
 * letter swapped for a Cyrillic or Greek one drawn alike: `drawnAlike`, as options are compared).
 * Each problem names the later field, which is left out of the form.
 */
export function fieldLookAlikes(fields: Readonly<Record<string, FieldSchema>>): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const shown: { name: string; label: string }[] = [];
  const seen = screen();
  for (const [name, field] of Object.entries(fields)) {
    const label = fieldLabel(name, field);
    // Its second line would read as another field's label (an untitled key is drawn as it is).
    if (breaksLine(field.title ?? '') || breaksLine(label)) {
      problems.push(
        problem(
          name,
          'bad_title',
          `field ${show(name)} has a ${field.title === undefined ? 'name' : 'title'} that breaks the line: ${show(field.title ?? name)}`,
          'Give the field a title of one line; put more in its description.',
        ),
      );
      continue;
    }
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
