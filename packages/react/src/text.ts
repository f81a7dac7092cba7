/**
 * Server-supplied text (message, titles, names) is drawn as-is by React, which escapes markup; bidi
 * overrides and control characters are still removed, because they can reorder what a person
 * reads (a host or an amount shown backwards) without any markup at all. Tabs and line breaks stay.
 *
 * @example
 * <p>{plainText(result.text)}</p> // 'deploy to \u202egnigats' reads 'deploy to gnigats', not 'deploy to staging'
 */
export function plain(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
}

/** `m:ss` (or `h:mm:ss`), counting whole seconds up so that `0:00` appears only when time is up. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A piece of a message: running text, or lines a fence (```) set apart to be read column by column (a diff). */
export interface MessagePart {
  code: boolean;
  text: string;
}

/**
 * A message split at its fenced blocks: a line of three backticks (an info word may follow) opens
 * one, the next such line closes it. A fence never closed is text like the rest.
 *
 * @example
 * messageParts('Differences:\n```diff\n- a\n+ b\n```\nWhich wins?')
 * // [{ code: false, text: 'Differences:' }, { code: true, text: '- a\n+ b' }, { code: false, text: 'Which wins?' }]
 */
export function messageParts(message: string): MessagePart[] {
  const parts: MessagePart[] = [];
  const lines = message.split('\n');
  let text: string[] = [];
  const flush = () => {
    if (text.length > 0) parts.push({ code: false, text: text.join('\n') });
    text = [];
  };
  // For each line, the next closing fence after it: one pass from the end, so a message of many
  // fences opened and never closed is read in time proportional to its length, not its square.
  const nextClose = new Array<number>(lines.length);
  for (let j = lines.length - 1, after = -1; j >= 0; j--) {
    nextClose[j] = after;
    if (/^```\s*$/.test(lines[j] as string)) after = j;
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const close = /^```[\w-]*\s*$/.test(line) ? (nextClose[i] as number) : -1;
    if (close < 0) {
      text.push(line);
      continue;
    }
    flush();
    parts.push({ code: true, text: lines.slice(i + 1, close).join('\n') });
    i = close;
  }
  flush();
  return parts;
}
