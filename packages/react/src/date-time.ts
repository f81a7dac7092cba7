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
  const date = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), millis);
  const fraction = millis === 0 ? '' : `.${pad(millis, 3)}`;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${fraction}${offsetOf(date)}`;
}

/** An ISO date-time with a zone → the same instant as a `datetime-local` value; `''` if unreadable. */
export function isoToLocal(iso: string): string {
  const time = Date.parse(iso);
  if (iso === '' || Number.isNaN(time)) return '';
  const date = new Date(time);
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** `Z` or `±hh:mm`, as the person's clock stands at `date`. */
export function offsetOf(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  if (minutes === 0) return 'Z';
  return `${minutes > 0 ? '+' : '-'}${pad(Math.trunc(minutes / 60))}:${pad(minutes % 60)}`;
}
