import type { Locale } from '@elicitkit/server';
import { MESSAGES } from '../messages/index.js';
import type { SideView } from '../messages/types.js';
import { spelledLine } from '../shorten.js';
import type { Side } from './workspace.js';

/** Changed lines shown in a conflict prompt; the rest are counted. */
export const MAX_DIFF_LINES = 8;
/** Files bigger than this (or binary) get sizes and times, not a diff. */
const MAX_DIFF_BYTES = 256 * 1024;
/** A bound on the diff's work, so a pathological pair of files cannot stall the server. */
const MAX_EDIT_LENGTH = 2000;

/** One side as a person reads it: its size and its time in their form, or "deleted". */
export type { SideView } from '../messages/types.js';

/**
 * A file's modification time the way a person on this server reads it: the server's time zone,
 * the chosen language, to the second, with the zone named (no milliseconds, no raw UTC).
 *
 * @example
 * localTime(new Date('2026-11-30T10:05:03.123Z'), 'en', 'Asia/Shanghai') // → '30 Nov 2026, 18:05:03 GMT+8'
 */
export function localTime(date: Date, locale: Locale, timeZone?: string): string {
  return new Intl.DateTimeFormat(MESSAGES[locale].dateLocale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
    ...(timeZone ? { timeZone } : {}),
  }).format(date);
}

/** Bytes in a person's units: 812 B, 4.2 KB, 1.3 MB. */
export function humanSize(bytes: number, locale: Locale): string {
  const units = MESSAGES[locale].sizeUnits;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const number = unit === 0 ? String(value) : value.toFixed(value < 10 ? 1 : 0);
  return `${number} ${units[unit]}`;
}

/** One side of a conflict as the question shows it. */
export function sideView(side: Side, locale: Locale, timeZone?: string): SideView {
  return side.exists
    ? { size: humanSize(side.content.length, locale), modified: localTime(side.mtime, locale, timeZone) }
    : { size: '—', modified: MESSAGES[locale].deleted };
}

/**
 * A short line diff from remote to local: at most `MAX_DIFF_LINES` changed lines, each on one
 * line with its spaces as they are and what no one sees spelled out (`spelledLine`), at most 100
 * characters, then how many more there are. Undefined when no text diff makes sense
 * (binary content, very large files, or a diff too costly to compute). `diff` is loaded on the
 * first conflict, not at start: most servers never see one.
 */
export async function shortDiff(remote: Side, local: Side): Promise<{ lines: string[]; more: number } | undefined> {
  const text = (s: Side) => (s.exists ? s.content : Buffer.alloc(0));
  const [a, b] = [text(remote), text(local)];
  if (a.length > MAX_DIFF_BYTES || b.length > MAX_DIFF_BYTES || a.includes(0) || b.includes(0)) return undefined;
  const { diffLines } = await import('diff');
  const changes = diffLines(a.toString('utf8'), b.toString('utf8'), { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) return undefined;
  const all: string[] = [];
  for (const change of changes) {
    if (!change.added && !change.removed) continue;
    // Spaces as they are, what no one sees spelled out: a change of whitespace alone shows.
    for (const line of change.value.replace(/\n$/, '').split('\n'))
      all.push(`${change.added ? '+' : '-'} ${spelledLine(line, 100)}`);
  }
  return { lines: all.slice(0, MAX_DIFF_LINES), more: Math.max(0, all.length - MAX_DIFF_LINES) };
}
