import type { ChatMessage } from '../lib/wire';

/** How much history one chat keeps in the browser: the newest messages, under both caps. */
export const HISTORY_LIMITS = { messages: 200, bytes: 256 * 1024 } as const;

const CURRENT = 'elicitkit.chat.current';
const PREFIX = 'elicitkit.chat.history.';

type ToolPart = Extract<ChatMessage['parts'][number], { type: 'dynamic-tool' }>;

/** A part a stream was still to settle: an open question, or a tool call without its result. */
function unsettled(part: ChatMessage['parts'][number]): boolean {
  return (
    (part.type === 'data-elicitation' && part.data.status === 'open') ||
    (part.type === 'dynamic-tool' && part.state !== 'output-available' && part.state !== 'output-error')
  );
}

/**
 * A restored message as it can be shown now: the stream that would have settled an open question
 * or a running tool call is gone with the old page, so the question is shown as no longer open
 * (never as answerable again) and the call as interrupted. The same message when nothing in it
 * waited on a stream.
 *
 * @example
 * settleRestored(message, 'interrupted by a reload');
 */
export function settleRestored(message: ChatMessage, interrupted: string): ChatMessage {
  if (!message.parts.some(unsettled)) return message;
  return {
    ...message,
    parts: message.parts.map((part) => {
      if (!unsettled(part)) return part;
      if (part.type === 'data-elicitation') return { ...part, data: { ...part.data, status: 'gone' } };
      return { ...part, state: 'output-error', errorText: interrupted } as ToolPart;
    }),
  };
}

/**
 * The messages once a turn has ended: one stopped (the Stop button) or cut (the connection lost)
 * leaves its open question and running call with no stream to settle them, as a reload does.
 * The same array when nothing waited.
 */
export function settleEnded(messages: ChatMessage[], interrupted: string): ChatMessage[] {
  return messages.some((m) => m.parts.some(unsettled)) ? messages.map((m) => settleRestored(m, interrupted)) : messages;
}

/**
 * The newest messages that fit both caps (whole messages only, oldest dropped first). A message
 * larger than the whole cap by itself (a tool's huge result) is left out, not allowed to leave
 * nothing saved: the messages before it are kept as far as they fit.
 *
 * @example
 * localStorage.setItem(key, JSON.stringify(capHistory(messages)));
 */
export function capHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  const kept: ChatMessage[] = [];
  let bytes = 2;
  for (let i = messages.length - 1; i >= 0 && kept.length < HISTORY_LIMITS.messages; i--) {
    const message = messages[i] as ChatMessage;
    const size = JSON.stringify(message).length + 1;
    if (2 + size > HISTORY_LIMITS.bytes) continue;
    if (bytes + size > HISTORY_LIMITS.bytes) break;
    bytes += size;
    kept.unshift(message);
  }
  return kept;
}

/** The chat this browser shows, and its saved messages (local to the browser; no answers, no secrets). */
export const history = {
  currentId(): string {
    const existing = localStorage.getItem(CURRENT);
    if (existing) return existing;
    return history.newId();
  },
  newId(): string {
    const id = crypto.randomUUID();
    localStorage.setItem(CURRENT, id);
    return id;
  },
  load(id: string, interrupted: string): ChatMessage[] {
    try {
      const raw = JSON.parse(localStorage.getItem(PREFIX + id) ?? '[]') as unknown;
      return Array.isArray(raw) ? (raw as ChatMessage[]).map((m) => settleRestored(m, interrupted)) : [];
    } catch {
      return [];
    }
  },
  save(id: string, messages: readonly ChatMessage[]): void {
    try {
      localStorage.setItem(PREFIX + id, JSON.stringify(capHistory(messages)));
    } catch {
      // Storage full or refused (private mode): the chat goes on, only unsaved.
    }
  },
  forget(id: string): void {
    localStorage.removeItem(PREFIX + id);
  },
};
