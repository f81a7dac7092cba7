import { type ChatMessage, TURN_BODY_LIMIT } from '../lib/wire';

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

/** What a turn's body holds beside its messages (the chat's id, the trigger, the message id), and some room to spare. */
const TURN_ENVELOPE = 4 * 1024;

/** UTF-8 bytes of `text`: what it weighs in a request body. */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    // A surrogate pair is four bytes, two per half; a lone half is sent as U+FFFD, three.
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The messages a turn sends: the newest that fit in the body the chat route reads
 * (`TURN_BODY_LIMIT`), whole messages only, oldest dropped first — a conversation whose results
 * add up past it (a few long logs) still takes the next message, the model seeing its recent
 * part. An older message larger than the whole body by itself is left out, not allowed to leave
 * nothing sent; the newest always goes (too large, the route says so). The same array when all fit.
 *
 * @example
 * new DefaultChatTransport({ prepareSendMessagesRequest: ({ messages }) => ({ body: { messages: fitForTurn(messages) } }) });
 */
export function fitForTurn(messages: ChatMessage[], limit: number = TURN_BODY_LIMIT): ChatMessage[] {
  const room = limit - TURN_ENVELOPE;
  let bytes = 2;
  const sizes = messages.map((m) => utf8Bytes(JSON.stringify(m)) + 1);
  if (sizes.reduce((a, b) => a + b, bytes) <= room) return messages;
  // The newest (what the person just said) goes whatever its size: too large alone, the route
  // refuses it saying so, rather than being sent nothing.
  const newest = messages.at(-1);
  if (newest === undefined || 2 + (sizes.at(-1) as number) > room) return newest === undefined ? [] : [newest];
  const kept: ChatMessage[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const size = sizes[i] as number;
    if (2 + size > room) continue;
    if (bytes + size > room) break;
    bytes += size;
    kept.unshift(messages[i] as ChatMessage);
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
