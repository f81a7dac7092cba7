/**
 * The size caps of a form: a person reads every title, help text and option, so past these a form
 * is no question but a load (a hostile server's megabytes to compare for look-alikes and to draw).
 * They are checked first, in one pass reading each string's length only, so refusing costs no more
 * than the form's size; what passes them is bounded for every later check.
 */
import { isObject, type JsonObject, own, show } from '../json.js';
import { MAX_OPTIONS } from '../kinds/options.js';
import { problem, type SchemaProblem } from './problems.js';

/** The longest title a field or an option may have (and a field's name, drawn when it has no title), in UTF-16 units. */
export const MAX_TITLE_LENGTH = 200;
/** The longest description (help) a field may have, in UTF-16 units. */
export const MAX_DESCRIPTION_LENGTH = 2_000;
/** The most options a whole form may offer (each field offers at most `MAX_OPTIONS`). */
export const MAX_FORM_OPTIONS = 2_000;
/**
 * The most text a whole form may hold, in UTF-16 units: field names, titles, descriptions, option
 * values and titles and text defaults together (as much as the longest message a question may carry).
 */
export const MAX_FORM_TEXT = 65_536;

/** Where a field's options are, by wire shape: `[where, the list, whether its items are {const, title}]`. */
function optionLists(raw: JsonObject): [string, unknown, boolean][] {
  const items = own(raw, 'items');
  const lists: [string, unknown, boolean][] = [
    ['enum', own(raw, 'enum'), false],
    ['enumNames', own(raw, 'enumNames'), false],
    ['oneOf', own(raw, 'oneOf'), true],
  ];
  if (isObject(items))
    lists.push(['items.enum', own(items, 'enum'), false], ['items.anyOf', own(items, 'anyOf'), true]);
  return lists;
}

interface FieldSize {
  /** Options offered: enumNames titles the enum's, so they are not counted again. */
  options: number;
  text: number;
  problem?: SchemaProblem;
}

/**
 * One field's options and text, and the first of its strings over its cap. Reads lengths only;
 * the strings of its options only when `options` is set (the form is within its options cap).
 */
function sizeOf(name: string, raw: unknown, options: boolean): FieldSize {
  const size: FieldSize = { options: 0, text: name.length };
  const over = (message: string, fix: string) => {
    size.problem ??= problem(name, 'too_long', message, fix);
  };
  if (name.length > MAX_TITLE_LENGTH)
    over(
      `field ${show(name)} has a name of ${name.length} characters, over the ${MAX_TITLE_LENGTH} a name may have`,
      'Name fields with short keys; give the words a person reads as the title.',
    );
  if (!isObject(raw)) return size;
  const title = own(raw, 'title');
  if (typeof title === 'string') {
    size.text += title.length;
    if (title.length > MAX_TITLE_LENGTH)
      over(
        `field ${show(name)} has a title of ${title.length} characters, over the ${MAX_TITLE_LENGTH} a title may have`,
        'Keep a title to a short line; put explanations in the description.',
      );
  }
  const description = own(raw, 'description');
  if (typeof description === 'string') {
    size.text += description.length;
    if (description.length > MAX_DESCRIPTION_LENGTH)
      over(
        `field ${show(name)} has a description of ${description.length} characters, over the ${MAX_DESCRIPTION_LENGTH} a description may have`,
        'Keep help to a few sentences; link to anything longer from the message.',
      );
  }
  // A text field's default is drawn pre-filled; a multi-select's names options, counted below.
  const dflt = own(raw, 'default');
  if (typeof dflt === 'string') size.text += dflt.length;
  for (const [where, list, titled] of optionLists(raw)) {
    // A list past the field's own cap is refused unread by its kind (kinds/options.ts).
    if (!Array.isArray(list) || list.length > MAX_OPTIONS) continue;
    if (where !== 'enumNames') size.options += list.length;
    if (!options) continue;
    for (const item of list) {
      const value = titled && isObject(item) ? own(item, 'const') : undefined;
      const drawn = titled ? (isObject(item) ? own(item, 'title') : undefined) : item;
      if (typeof value === 'string') size.text += value.length;
      if (typeof drawn !== 'string') continue;
      size.text += drawn.length;
      if (drawn.length > MAX_TITLE_LENGTH)
        over(
          `field ${show(name)} has an option ${titled || where === 'enumNames' ? 'title ' : ''}of ${drawn.length} characters in ${where}, over the ${MAX_TITLE_LENGTH} a title may have`,
          'Keep each option to a short line; explain the choices in the description.',
        );
    }
  }
  return size;
}

export interface FormSize {
  /** One per field over a cap of its own, and one for the whole form over a form cap. */
  problems: SchemaProblem[];
  /** Fields over a cap of their own: left out unread. */
  refused: Set<string>;
  /** The form is over a cap of the whole: no field is read. */
  whole: boolean;
}

/**
 * Checks the caps on `names` of `properties` (a raw form's), reading lengths only: the whole form
 * is refused when its fields offer more than `MAX_FORM_OPTIONS` options (counted from the lists'
 * lengths, before any option is read); else a field with a name, title, description or option
 * over its cap is refused (named in the problem), and the whole form when the rest hold more than
 * `MAX_FORM_TEXT` characters, naming the field that holds the most.
 */
export function formSize(properties: JsonObject, names: readonly string[]): FormSize {
  // First the options each field offers (list lengths), then, within that cap, every string.
  let options = 0;
  let mostOptions: [string, number] = ['', -1];
  for (const name of names) {
    const size = sizeOf(name, own(properties, name), false);
    if (size.problem) continue;
    options += size.options;
    if (size.options > mostOptions[1]) mostOptions = [name, size.options];
  }
  if (options > MAX_FORM_OPTIONS) {
    const problems = [
      problem(
        undefined,
        'too_many_options',
        `the form offers ${options} options in all, over the ${MAX_FORM_OPTIONS} a form may offer (the most in field ${show(mostOptions[0])}, ${mostOptions[1]})`,
        'Ask fewer questions at once: split the form, or ask for open-ended input with a string field.',
      ),
    ];
    return { problems, refused: new Set(), whole: true };
  }
  const problems: SchemaProblem[] = [];
  const refused = new Set<string>();
  let text = 0;
  let mostText: [string, number] = ['', -1];
  for (const name of names) {
    const size = sizeOf(name, own(properties, name), true);
    if (size.problem) {
      problems.push(size.problem);
      refused.add(name);
      continue;
    }
    text += size.text;
    if (size.text > mostText[1]) mostText = [name, size.text];
  }
  if (text > MAX_FORM_TEXT)
    return {
      problems: [
        ...problems,
        problem(
          undefined,
          'too_long',
          `the form holds ${text} characters of text (names, titles, descriptions, options and defaults), over the ${MAX_FORM_TEXT} a form may hold (the most in field ${show(mostText[0])}, ${mostText[1]})`,
          'Keep titles and help short; link to anything long from the message, and take bulk data as tool arguments.',
        ),
      ],
      refused,
      whole: true,
    };
  return { problems, refused, whole: false };
}
