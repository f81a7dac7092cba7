/**
 * Server-supplied text (message, titles, names) is drawn as-is by React, which escapes markup; bidi
 * overrides and control characters are still removed, because they can reorder what a person
 * reads (a host or an amount shown backwards) without any markup at all.
 */
export function plain(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
}

/** `m:ss` (or `h:mm:ss`), counting whole seconds up so that `0:00` appears only when time is up. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
