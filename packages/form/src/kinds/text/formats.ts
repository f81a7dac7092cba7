/**
 * The string formats the protocol allows, each with its check. The checks accept exactly what
 * ajv-formats accepts in its "full" mode (the differential test holds us to that): a real calendar
 * date, a date-time with a time zone, an RFC 3986 URI with a scheme, a dot-atom email address.
 *
 * This table is the truth: `StringFormat`, `TextKind` and so `FieldKind` are derived from its keys,
 * so a new format added here reaches every renderer's table as a compile error until it is drawn.
 */
import { isUri } from './uri.js';

export interface FormatSpec {
  /** The longest value worth checking; longer values are refused before any expression runs. */
  maxLength: number;
  /** Completes "… must be": what a valid value is, in words. */
  means: string;
  /** True when `value` is in the format. */
  test(value: string): boolean;
}

export const FORMATS = {
  email: { maxLength: 254, means: 'an email address', test: isEmail },
  uri: { maxLength: 8192, means: 'a full URL (with https:// or similar)', test: isUri },
  date: { maxLength: 10, means: 'a real calendar date (YYYY-MM-DD)', test: isDate },
  'date-time': {
    maxLength: 64,
    means: 'a date and time with a time zone (e.g. 2026-03-01T09:30:00Z)',
    test: isDateTime,
  },
} as const satisfies Record<string, FormatSpec>;

/** String formats the protocol allows. */
export type StringFormat = keyof typeof FORMATS;

/** True for a key of the format table (and not of `Object.prototype`). */
export function isStringFormat(value: unknown): value is StringFormat {
  return typeof value === 'string' && Object.hasOwn(FORMATS, value);
}

// ASCII only, as a JSON Schema validator's case-insensitive (non-Unicode) expressions are.
const ATEXT = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

/** `local@domain`: the local part dot-separated atoms, the domain two or more host labels. */
function isEmail(value: string): boolean {
  const at = value.indexOf('@');
  if (at < 0 || value.indexOf('@', at + 1) >= 0) return false;
  const local = value.slice(0, at).split('.');
  const domain = value.slice(at + 1).split('.');
  return local.every((atom) => ATEXT.test(atom)) && domain.length >= 2 && domain.every((label) => LABEL.test(label));
}

const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** RFC 3339 full-date that exists on the calendar (no 2026-02-30). */
function isDate(value: string): boolean {
  const m = FULL_DATE.exec(value);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0));
}

// Seconds may carry a fraction; the zone is Z or ±hh[[:]mm], and `t`/`z` may be lower case.
const TIME = /^(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(?:(z)|([+-])(\d{2})(?::?(\d{2}))?)?$/i;

/** RFC 3339 full-time with a zone; 23:59:60 UTC (a leap second) counts, in any zone. */
function isTime(value: string): boolean {
  const m = TIME.exec(value);
  if (!m || (m[4] === undefined && m[5] === undefined)) return false;
  const [hour, minute, second] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const sign = m[5] === '-' ? -1 : 1;
  const zoneHours = Number(m[6] ?? 0);
  const zoneMinutes = Number(m[7] ?? 0);
  if (zoneHours > 23 || zoneMinutes > 59) return false;
  if (hour <= 23 && minute <= 59 && second < 60) return true;
  // A leap second is 23:59:60 in UTC: shift the wall time by the zone and look again.
  const utcMinute = minute - zoneMinutes * sign;
  const utcHour = hour - zoneHours * sign - (utcMinute < 0 ? 1 : 0);
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61;
}

/** A date and a time with a zone, separated by `T`, `t` or one whitespace character. */
function isDateTime(value: string): boolean {
  const parts = value.split(/t|\s/i);
  return parts.length === 2 && isDate(parts[0] ?? '') && isTime(parts[1] ?? '');
}
