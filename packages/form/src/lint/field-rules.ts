/** Lint rules about one field that several kinds share; each kind's module decides which apply to it. */
import type { FieldModel } from '../fields.js';
import type { FieldBase } from '../kinds/spec.js';
import { type Finding, finding } from './rules.js';
import { findAskedTerm, findTerm, SECRETS, words } from './words.js';

const SECRET_FIX =
  'Never collect passwords, keys, tokens or payment data in form mode: send the person to a page you serve with URL mode (askUrl) instead.';

/**
 * EK09: a field a person types into whose name, title or description names a secret. The
 * description is read too: it is shown beside the box, so a field `value` described "Your OpenAI
 * API key" asks for that key as plainly as a field named `apiKey`. Being prose, it may also warn
 * ("do not give us your PIN"): a secret named after a negation is not asked for.
 */
export function secretFinding(f: FieldBase, title: string | undefined): Finding[] {
  const term =
    findTerm(f.name, SECRETS) ??
    (SECRET_KEYS.has(f.name.toLowerCase()) ? f.name : undefined) ??
    findTerm(title ?? '', SECRETS) ??
    findAskedTerm(f.help ?? '', SECRETS);
  if (!term) return [];
  return [finding('EK09', `field "${f.name}" asks for a secret ("${term}") in a form`, SECRET_FIX, f.name)];
}

/**
 * Keys that are a secret's usual short name when they are the whole key (a field `pass`), though
 * the word alone means other things in prose ("the build will pass", a boarding pass).
 */
const SECRET_KEYS: ReadonlySet<string> = new Set(['pass']);

/** Kinds a secret can be typed into: plain text, and numbers (a PIN, a card number). */
const TYPED_KINDS: ReadonlySet<FieldModel['kind']> = new Set(['text', 'number', 'integer']);

/** Labels that say nothing of what goes in the box; the message says it instead. */
const SAYS_NOTHING: ReadonlySet<string> = new Set([
  'value',
  'input',
  'answer',
  'response',
  'reply',
  'text',
  'entry',
  'data',
  'field',
  'string',
  'content',
  'your',
  'the',
  'a',
  // Where and how to type, not what: "Type here", "Enter it here, please".
  'here',
  'type',
  'enter',
  'it',
  'please',
]);
const SAYS_NOTHING_UNSPACED: ReadonlySet<string> = new Set(['值', '内容', '输入', '回答', '答案']);

function saysNothing(text: string): boolean {
  const shown = text.normalize('NFKC').trim();
  // One character (an untitled key `v`, a label "x") names nothing a person could read.
  if (SAYS_NOTHING_UNSPACED.has(shown) || [...shown].length === 1) return true;
  const list = words(shown);
  return list.length > 0 && list.every((w) => SAYS_NOTHING.has(w));
}

/**
 * EK09 from the message: a form whose message names a secret ("Paste your OpenAI API key…") asks
 * for it in each box whose label (what the person reads beside it) names nothing: "Value". A field
 * labelled for something of its own is that, whatever the message mentions: "You will set the
 * password on a secure page next" above a "Username" box asks for no password. Fields already
 * found are not reported twice.
 */
export function messageSecretFindings(
  message: string,
  fields: readonly FieldModel[],
  found: readonly Finding[],
): Finding[] {
  const term = findAskedTerm(message, SECRETS);
  if (!term) return [];
  return fields
    .filter((f) => TYPED_KINDS.has(f.kind) && saysNothing(f.label))
    .filter((f) => !found.some((x) => x.rule === 'EK09' && x.field === f.name))
    .map((f) =>
      finding(
        'EK09',
        `field "${f.name}" asks for a secret in a form: the message asks for one ("${term}") and the field names nothing else`,
        SECRET_FIX,
        f.name,
      ),
    );
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
