/**
 * Whether a number written in JSON reaches its reader as written. `JSON.parse` reads every number
 * as the nearest double, without a word (`1e-400` is 0, `2.00000000000000001` is 2,
 * `123456789012345678` is …680, `1e400` is Infinity, sent as null); what is sent on is that double
 * written back as the shortest decimal that reads as it (`JSON.stringify`). One comparison for every
 * place a person's JSON is read: the CLI's and the chat's tool arguments, the chat's answers.
 */

/**
 * What the JSON number `written` arrives as (read by `JSON.parse`, sent by `JSON.stringify`) when
 * that is another value; undefined when it arrives as written (`0.1`, `1e2`, `2.0`, and `-0`, whose
 * value 0 is the same: say so yourself where its sign matters).
 *
 * @example
 * numberReadAs('1e-400'); // '0'
 * numberReadAs('2.00000000000000001'); // '2'
 * numberReadAs('1e400'); // 'null'
 * numberReadAs('2.50'); // undefined
 */
export function numberReadAs(written: string): string | undefined {
  const sent = JSON.stringify(Number(written));
  return decimal(written) === decimal(sent) ? undefined : sent;
}

const ZERO = 0x30;

/**
 * A decimal's value in one spelling (sign, significant digits, exponent), or undefined for what is
 * not a finite decimal (`null`, what Infinity is sent as). Exponents are BigInts:
 * `1e99999999999999999999` is a decimal too.
 */
function decimal(text: string): string | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = m;
  let digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  let scale = BigInt(exponent) - BigInt(fraction.length);
  // Counted from the end: /0+$/ tries every run of zeros to its end, time squared in the digits
  // (a 64 KB typed answer held the web app's one thread for seconds).
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === ZERO) end--;
  const trailing = digits.length - end;
  digits = digits.slice(0, end);
  scale += BigInt(trailing);
  return `${sign}${digits}e${scale}`;
}
