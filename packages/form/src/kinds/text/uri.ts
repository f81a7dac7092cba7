/**
 * The `uri` format: an absolute URI by the grammar of RFC 3986 (appendix A), built here from its
 * named parts so each can be read against the RFC. Two departures keep it identical to
 * ajv-formats' full mode, which servers and clients already agree on: a dec-octet may have leading
 * zeros (`010.0.0.1`), and the authority may follow one slash as well as two, while a bare
 * `scheme:` with an empty path is refused.
 */

const HEX = '[0-9a-f]';
const PCT_ENCODED = `%${HEX}{2}`;
const UNRESERVED = 'a-z0-9\\-._~';
const SUB_DELIMS = "!$&'()*+,;=";
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT_ENCODED})`;

const DEC_OCTET = '(?:25[0-5]|2[0-4]\\d|[01]?\\d\\d?)';
const IPV4 = `(?:${DEC_OCTET}\\.){3}${DEC_OCTET}`;
const H16 = `${HEX}{1,4}`;
const LS32 = `(?:${H16}:${H16}|${IPV4})`;

/** `[ *(n-1)( h16 ":" ) h16 ] "::"` — up to n groups before the double colon. */
const before = (n: number) => `(?:(?:${H16}:){0,${n - 1}}${H16})?::`;
const IPV6 = [
  `(?:${H16}:){6}${LS32}`,
  `::(?:${H16}:){5}${LS32}`,
  `${before(1)}(?:${H16}:){4}${LS32}`,
  `${before(2)}(?:${H16}:){3}${LS32}`,
  `${before(3)}(?:${H16}:){2}${LS32}`,
  `${before(4)}${H16}:${LS32}`,
  `${before(5)}${LS32}`,
  `${before(6)}${H16}`,
  before(7),
].join('|');
const IPVFUTURE = `v${HEX}+\\.[${UNRESERVED}${SUB_DELIMS}:]+`;
const IP_LITERAL = `\\[(?:${IPV6}|${IPVFUTURE})\\]`;
const REG_NAME = `(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT_ENCODED})*`;
const USERINFO = `(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT_ENCODED})*`;
const AUTHORITY = `(?:${USERINFO}@)?(?:${IP_LITERAL}|${IPV4}|${REG_NAME})(?::\\d*)?`;

const SEGMENT = `${PCHAR}*`;
const SEGMENT_NZ = `${PCHAR}+`;
const PATH_ABEMPTY = `(?:/${SEGMENT})*`;
const PATH_ABSOLUTE = `/(?:${SEGMENT_NZ}(?:/${SEGMENT})*)?`;
const PATH_ROOTLESS = `${SEGMENT_NZ}(?:/${SEGMENT})*`;
const HIER_PART = `(?:/?/${AUTHORITY}${PATH_ABEMPTY}|${PATH_ABSOLUTE}|${PATH_ROOTLESS})`;
const QUERY_OR_FRAGMENT = `(?:${PCHAR}|[/?])*`;
const SCHEME = '[a-z][a-z0-9+\\-.]*';

const URI = `^${SCHEME}:${HIER_PART}(?:\\?${QUERY_OR_FRAGMENT})?(?:#${QUERY_OR_FRAGMENT})?$`;

// Built on first use, not at import: most processes never check a URL.
let pattern: RegExp | undefined;

/** True for an absolute URI (a scheme, then a hierarchical part, an optional query and fragment). */
export function isUri(value: string): boolean {
  // Case-insensitive without the `u` flag: letters match in ASCII only, as the grammar means.
  pattern ??= new RegExp(URI, 'i');
  return pattern.test(value);
}
