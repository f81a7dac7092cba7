/**
 * The protocol's `date-time` needs a time zone, a browser's `datetime-local` input has none: the
 * person types their local time and the answer carries their offset. An untouched value (a default
 * or a previous answer) is never converted, so it is sent back exactly as it came.
 */

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** `2026-02-28T08:00` (a `datetime-local` value) → `2026-02-28T08:00:00+08:00`; `''` when incomplete. */
export function localToIso(local: string): string {
  const m = LOCAL.exec(local);
  if (!m) return '';
  const [, y = '', mo = '', d = '', h = '', mi = '', s = '00', ms = ''] = m;
  const millis = Number(ms.padEnd(3, '0'));
  // Set piece by piece: the Date constructor reads years 0–99 as 1900–1999.
  const date = new Date(2000, 0, 1);
  date.setFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setHours(Number(h), Number(mi), Number(s), millis);
  const fraction = millis === 0 ? '' : `.${pad(millis, 3)}`;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${fraction}${offsetOf(date)}`;
}

/**
 * The protocol's date-time as the form's validator reads it (RFC 3339 as ajv-formats does): `T`,
 * `t` or a space between date and time, any fraction, a zone `Z` or `±hh[[:]mm]`. Read here, not
 * by `Date.parse`, which refuses some of these (`+05`, a leap second) and differs by browser.
 */
const ZONED = /^(\d{4})-(\d{2})-(\d{2})[t\s](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(z)|([+-])(\d{2})(?::?(\d{2}))?)$/i;

/** The instant a protocol date-time names, or `undefined`. */
function instantOf(iso: string): Date | undefined {
  const m = ZONED.exec(iso);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', utc, sign, zoneHours = '0', zoneMinutes = '0'] = m;
  const date = new Date(0);
  // Piece by piece, as in localToIso: Date.UTC reads years 0–99 as 1900–1999.
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  // A leap second (:60) is shown as the second before it, keeping its day and minute.
  date.setUTCHours(Number(h), Number(mi), Math.min(Number(s), 59), Number(fraction.slice(0, 3).padEnd(3, '0')));
  const offset = utc ? 0 : (sign === '-' ? -1 : 1) * (Number(zoneHours) * 60 + Number(zoneMinutes));
  return new Date(date.getTime() - offset * 60_000);
}

/** A protocol date-time → the same instant as a `datetime-local` value; `''` if unreadable or not showable. */
export function isoToLocal(iso: string): string {
  const date = instantOf(iso);
  // A datetime-local value's year has four digits or more and is at least 1.
  if (!date || Number.isNaN(date.getTime()) || date.getFullYear() < 1) return '';
  const day = `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** `Z` or `±hh:mm`, as the person's clock stands at `date`. */
export function offsetOf(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  if (minutes === 0) return 'Z';
  return `${minutes > 0 ? '+' : '-'}${pad(Math.trunc(minutes / 60))}:${pad(minutes % 60)}`;
}
