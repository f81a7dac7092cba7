import { describeFields } from '../fields.js';
import type { FormSchema } from '../wire.js';

/**
 * What lint knows about a request besides the request itself.
 *
 * @example
 * lint(request, { given: ['DELETE FROM order_items'] }); // "order_items" in the message is the person's own word
 */
export interface LintContext {
  /**
   * Text the person or the call supplied: the tool call's argument values, earlier answers. A
   * name found in it (case-insensitively, anywhere inside) is a word the person chose — the table
   * in their own SQL, the service they named — so the message may show it, quoted or not.
   */
  given?: readonly string[];
}

/** Rule EK11's view of one message: the given words, and the form the message introduces. */
export interface MessageContext extends LintContext {
  /** Its field keys and option values are the server's names for things, not the person's. */
  form?: FormSchema;
}

/** One name a message should not show, and why it is the server's rather than the person's. */
export interface ShownIdentifier {
  name: string;
  /** `unquoted`: a code-shaped name in the prose; `form`: a field key or option value, quoted or not. */
  why: 'unquoted' | 'form';
}

// Names as code writes them. Looked for kind by kind, in this order, so the one a finding names
// is the same as before the context existed.
const SNAKE = /\b[a-z][a-z0-9]*_[a-z0-9_]+\b/g;
const CAMEL = /\b[a-z]+[A-Z][A-Za-z0-9]*\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const IDENTIFIERS = [SNAKE, CAMEL, UUID];
/**
 * Product names written in camel case, which people read every day: a single lowercase letter
 * before one capitalised word (iPhone, iCloud, eBay) and Apple's and webOS's operating systems
 * (macOS, iOS, watchOS, iPadOS). Code's names have a word before the capital (`userId`,
 * `releaseTicketId`, `buildOS`) or more than one capital after it (`xPosValue`).
 */
const BRAND = /^(?:[a-z][A-Z][a-z]+|(?:mac|i|iPad|watch|tv|vision|web)OS)$/;

/**
 * Where a message quotes something: a code span of any number of backticks, closed by a run of the
 * same length (CommonMark, so ``a `b` c`` is one span), double, curly and CJK quotes, and single
 * quotes that are not apostrophes. A quote holds no opening quote of its own kind (“a “b” is the
 * quote “b”): so an opening quote that never closes is looked past only to the next one, not to the
 * end of the message from every one of them (time growing with its length squared).
 */
const QUOTED =
  /(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)|"[^"]*"|“[^“”]*”|「[^「」]*」|『[^『』]*』|(^|\s)'[^'\s][^']*'(?=$|[\s.,;:!?])/g;

/**
 * The first name in `text` the person cannot be expected to know: a code-shaped name that is
 * neither given nor quoted, or a key or option value of the form, even quoted (the person sees the
 * field's title and the option's label, never these). A given word is always fine.
 */
export function shownIdentifier(text: string, context: MessageContext = {}): ShownIdentifier | undefined {
  const given = givenTest(context.given ?? []);
  const own = formNames(context.form);
  for (const pattern of IDENTIFIERS) {
    for (const stretch of stretches(text)) {
      for (const [name] of stretch.text.matchAll(pattern)) {
        if (given(name) || (pattern === CAMEL && BRAND.test(name) && !own.has(name.toLowerCase()))) continue;
        if (own.has(name.toLowerCase())) return { name, why: 'form' };
        if (!stretch.quoted) return { name, why: 'unquoted' };
      }
    }
  }
  return undefined;
}

/** The message cut into quoted and unquoted stretches, in order. */
function stretches(text: string): { text: string; quoted: boolean }[] {
  const out: { text: string; quoted: boolean }[] = [];
  let at = 0;
  for (const match of text.matchAll(QUOTED)) {
    out.push({ text: text.slice(at, match.index), quoted: false }, { text: match[0], quoted: true });
    at = match.index + match[0].length;
  }
  out.push({ text: text.slice(at), quoted: false });
  return out;
}

/** True for a name that occurs, in any case, inside one of the given strings. */
function givenTest(given: readonly string[]): (name: string) => boolean {
  const lower = given.map((g) => g.toLowerCase());
  return (name) => {
    const wanted = name.toLowerCase();
    return lower.some((g) => g.includes(wanted));
  };
}

/** The form's own names, lowercased: every field key and option value. */
function formNames(form: FormSchema | undefined): ReadonlySet<string> {
  if (!form) return new Set();
  const names = describeFields(form).flatMap((f) => [f.name, ...('options' in f ? f.options.map((o) => o.value) : [])]);
  return new Set(names.map((n) => n.toLowerCase()));
}
