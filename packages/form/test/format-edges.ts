/**
 * fast-check generators for strings on the edges of each string format: valid values mutated,
 * noise from the format's alphabet, and structured near-misses (calendar edges, leap seconds,
 * every row of RFC 3986's IPv6 grammar).
 */
import fc from 'fast-check';
import { valueFor } from './arbitraries.js';

const EMAIL_CHARS = [...'abcXYZ019.@-_+!#%é ~'];
const URI_CHARS = [...'aZ09:/?#[]@!$&\'()*+,;=-._~% fFvV\\"<>é'];
const DATE_CHARS = [...'0123456789-T:Zz+. '];

/** Strings that may or may not be in `format`: mutations of valid values, and noise from its alphabet. */
export function formatEdge(format: 'email' | 'uri' | 'date' | 'date-time'): fc.Arbitrary<string> {
  const valid = valueFor({ type: 'string', format }) as fc.Arbitrary<string>;
  const alphabet = format === 'email' ? EMAIL_CHARS : format === 'uri' ? URI_CHARS : DATE_CHARS;
  const noise = fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 30 });
  const structured =
    format === 'date' ? dateLike : format === 'date-time' ? dateTimeLike : format === 'uri' ? uriLike : noise;
  return fc.oneof(valid, mutate(valid, alphabet), noise, structured, mutate(structured, alphabet));
}

export function mutate(base: fc.Arbitrary<string>, alphabet: string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      base,
      fc.array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), fc.constantFrom(...alphabet)), {
        minLength: 1,
        maxLength: 3,
      }),
    )
    .map(([s, edits]) => {
      let out = s;
      for (const [at, op, ch] of edits) {
        const i = out.length === 0 ? 0 : at % (out.length + 1);
        if (op === 'insert') out = out.slice(0, i) + ch + out.slice(i);
        else if (op === 'delete') out = out.slice(0, i) + out.slice(i + 1);
        else out = out.slice(0, i) + ch + out.slice(i + 1);
      }
      return out;
    });
}

const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
const dateLike = fc
  .tuple(fc.integer({ min: 0, max: 9999 }), two(14), two(33))
  .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${m}-${d}`);
const zone = fc.oneof(
  fc.constantFrom('', 'Z', 'z', '+00:00', '-08:00', '+05:30', '+0530', '+05', '+24:00', '-00:60', '+5:30'),
  fc.tuple(fc.constantFrom('+', '-'), two(25), fc.constantFrom(':', ''), two(61)).map((p) => p.join('')),
);
const anyTime = fc
  .tuple(two(25), two(61), two(61), fc.constantFrom('', '.5', '.123456', '.'), zone)
  .map(([h, m, s, frac, z]) => `${h}:${m}:${s}${frac}${z}`);
// Leap seconds are 23:59:60 UTC, so the wall clock and the zone have to line up to hit one.
const leapTime = fc
  .tuple(
    fc.constantFrom('23', '22', '00', '15', '24'),
    fc.constantFrom('59', '29', '00', '58'),
    fc.constantFrom('59', '60', '60.999', '61'),
    fc.constantFrom('Z', '+00:00', '-08:00', '+01:00', '+00:30', '-00:01', '+0100', '-01', ''),
  )
  .map(([h, m, s, z]) => `${h}:${m}:${s}${z}`);
const timeLike = fc.oneof(anyTime, leapTime);
const dateTimeLike = fc
  .tuple(dateLike, fc.constantFrom('T', 't', ' ', '\u00a0', '\u2028', 'x', 'TT', ''), timeLike)
  .map(([d, sep, t]) => `${d}${sep}${t}`);
const ipv6Row = fc.constantFrom(
  '1:2:3:4:5:6:7:8',
  '1:2:3:4:5:6:1.2.3.4',
  '::2:3:4:5:6:7:8',
  '1::3:4:5:6:7:8',
  '1:2::4:5:6:7:8',
  '1:2:3::5:6:7:8',
  '1:2:3:4::6:7:8',
  '1:2:3:4:5::7:8',
  '1:2:3:4:5:6::8',
  '1:2:3:4:5:6:7::',
  '1:2:3:4:5:6:7:8:9',
  '1:2:3:4:5:6:7:8::',
  '::1:2:3:4:5:6:7:8',
  '1:2:3:4:5:6:7::8',
  '1:2:3:4:5:6:7:1.2.3.4',
  '12345::',
);
/** IPv6 and IPvFuture literals, valid and nearly so, in brackets. */
export const ipLiteral: fc.Arbitrary<string> = fc
  .oneof(
    ipv6Row,
    fc.ipV6(),
    mutate(fc.oneof(ipv6Row, fc.ipV6()), [...'0123456789abcdefABCDEF:.g']),
    fc.constantFrom('v7.a:b', 'V1F.x', 'v.x', 'vg.x', 'v1.', 'v1.[', '::ffff:1.2.3.4', '::1.2.3.256', '::01.2.3.4'),
  )
  .map((a) => `[${a}]`);

const host = fc.oneof(
  fc.ipV6().map((a) => `[${a}]`),
  fc.ipV4(),
  fc.ipV4Extended(),
  fc.domain(),
  fc.constantFrom('[v7.a:b]', '[V1F.x]', '[::1]', '[1::2::3]', '[::ffff:1.2.3.4]', '010.1.1.1', '', 'a%41b'),
  // One address per row of RFC 3986's IPv6address, and one too long for each.
  ipv6Row.map((a) => `[${a}]`),
);
const authorityUri = fc
  .tuple(
    fc.constantFrom('http', 'x-y+z.1', 'urn', 'A'),
    fc.constantFrom('//', '/', '///'),
    fc.constantFrom('', 'user@', 'u:p@', '%zz@'),
    host,
    fc.constantFrom('', ':', ':80', ':x'),
    fc.constantFrom('', '/', '/a/b', '/a b', '/%7e'),
    fc.constantFrom('', '?q=1', '?', '?a#b', '#f', '#a#b'),
  )
  .map((parts) => `${parts[0]}:${parts.slice(1).join('')}`);
const uriLike = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.webUrl({ validSchemes: ['ftp', 'urn', 'x-y+z.1'] }),
  authorityUri,
  fc.constantFrom('mailto:a@b.c', 'urn:isbn:1', 'a:', 'a:?q', 'a:/[::1]', '1a:b', 'a:b:c', 'a://'),
);
