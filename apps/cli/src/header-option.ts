import { UsageError } from './usage.js';

/** An HTTP header name (RFC 9110 token characters): one a client could not send is refused here. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `--header` values, one syntax for every command: `"Name: value"` (`Name=value` is read the same:
 * the first `:` or `=` ends the name). A name that is no header name, one given twice, or a value
 * holding a line break, NUL or a character past U+00FF is a usage error. Names keep their case (a config file writes them as given).
 *
 * @example
 * headerOptions(['Authorization: Bearer ek_x']) // { Authorization: 'Bearer ek_x' }
 */
export function headerOptions(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const header of raw) {
    const at = header.search(/[:=]/);
    const name = at === -1 ? '' : header.slice(0, at).trim();
    if (!TOKEN.test(name))
      // Not quoted back: a header written wrong is most often a credential (`Authorization Bearer ek_…`).
      throw new UsageError(
        `--header must be "Name: value" (a header name, then ":" or "=", then the value), e.g. --header "Authorization: Bearer ek_…"; the one given is not shown, as it may hold a credential`,
      );
    if (Object.keys(out).some((k) => k.toLowerCase() === name.toLowerCase()))
      throw new UsageError(`--header ${name} is given twice`);
    // A line break would start another header (and fetch refuses such a value): never written or sent.
    if (/[\r\n\0]/.test(header.slice(at + 1)))
      throw new UsageError(`--header ${name}: the value holds a line break or NUL, which no header may carry`);
    // fetch sends a header as bytes: a character past U+00FF fails every request, as a connection
    // that could not be made, and no client given the value in a config can send it either.
    const wide = [...header.slice(at + 1)].findIndex((c) => (c.codePointAt(0) ?? 0) > 0xff);
    if (wide !== -1)
      throw new UsageError(
        `--header ${name}: the value holds a character no header can carry (past U+00FF, character ${wide + 1} of the value)`,
      );
    // defineProperty: a header named __proto__ stays a header.
    Object.defineProperty(out, name, { value: header.slice(at + 1).trim(), enumerable: true, writable: true });
  }
  return out;
}
