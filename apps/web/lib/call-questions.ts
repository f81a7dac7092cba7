import type { ServerDeadline, SettleReason } from '@elicitkit/client';
import type { Chat } from './state';

/**
 * One tool call running in a chat: the server it went to, the questions shown while it ran, and
 * its promise (closing a chat waits for it).
 */
export interface RunningCall {
  server: string;
  questions: Set<string>;
  done: Promise<unknown>;
  /** Its deadline on the server's time (`serverDeadline`): told of each question it holds. */
  deadline?: Pick<ServerDeadline, 'asking' | 'answered'>;
  /** The last of its questions to settle, and how (`questionSettled`): what its end answered. */
  lastSettled?: { id: string; reason: SettleReason };
}

/**
 * Counts `done` as a call of the chat to `server` until `endCall`. Registered before the call
 * can ask anything: its request is sent only after the connection's promise is awaited.
 */
export function startCall(
  chat: Chat,
  server: string,
  done: Promise<unknown>,
  deadline?: RunningCall['deadline'],
): RunningCall {
  const call: RunningCall = { server, questions: new Set(), done, ...(deadline ? { deadline } : {}) };
  chat.calls.add(call);
  return call;
}

/**
 * Ties a question `server` asks to every call of the chat running on that server: a 2025-11-25
 * request says nothing of which call it serves, so each of them holds it until it ends. False
 * when none runs — the call that asked has ended, so the question must not be shown.
 */
export function claimQuestion(chat: Chat, server: string, id: string): boolean {
  let held = false;
  for (const call of chat.calls) {
    if (call.server !== server) continue;
    call.questions.add(id);
    call.deadline?.asking(id);
    held = true;
  }
  return held;
}

/** Notes how question `id` settled on every running call holding it (`RunningCall.lastSettled`). */
export function questionSettled(chat: Chat, id: string, reason: SettleReason): void {
  for (const call of chat.calls) {
    if (!call.questions.has(id)) continue;
    call.lastSettled = { id, reason };
    call.deadline?.answered(id);
  }
}

/** Forgets an ended call; returns its questions that no call still running holds. */
export function endCall(chat: Chat, call: RunningCall): string[] {
  chat.calls.delete(call);
  return [...call.questions].filter((id) => ![...chat.calls].some((other) => other.questions.has(id)));
}
