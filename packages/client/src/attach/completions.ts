import type { Client } from '@modelcontextprotocol/client';
import type { UrlPrompt } from '../types.js';
import type { Responder } from './responder.js';

/** A URL question this client accepted, waiting for the server to say the page is done. */
interface Accepted {
  /** The request's number in `attach`'s events. */
  id: number;
  prompt: UrlPrompt;
}

/**
 * The URL questions accepted on one client, by `elicitationId`, and the handler of
 * `notifications/elicitation/complete` (2025-11-25) that closes them. Only an id this client
 * accepted on its current connection is ever completed, once: the spec asks clients to ignore
 * unknown and already completed ids, so a server can close no other server's question, none
 * still waiting for consent (a completion sent before the accept), and none of an earlier
 * connection. 2026-07-28 has neither the id nor the notification.
 */
export interface Completions {
  /** The person consented to `prompt` on the connection `connection` and accept is being sent. */
  accepted(id: number, prompt: UrlPrompt, connection: AbortSignal): void;
  /**
   * Resolves true once the server says the page of accepted question `elicitationId` is done
   * (at once if it said so already), false when `signal` aborts first.
   */
  finished(elicitationId: string, signal: AbortSignal): Promise<boolean>;
}

/** How many completed ids are remembered for a `finished` asked after its notification came. */
const REMEMBERED = 64;

export function trackCompletions(client: Client, responder: Responder): Completions {
  const open = new Map<string, Accepted>();
  const done = new Set<string>();
  const waiting = new Map<string, Set<() => void>>();
  client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
    const elicitationId = notification.params.elicitationId;
    const entry = open.get(elicitationId);
    if (!entry) return;
    open.delete(elicitationId);
    done.add(elicitationId);
    if (done.size > REMEMBERED) done.delete(done.values().next().value as string);
    for (const wake of waiting.get(elicitationId) ?? []) wake();
    waiting.delete(elicitationId);
    responder.emit({ type: 'url-completed', id: entry.id, elicitationId });
    try {
      responder.renderer.urlCompleted?.(entry.prompt);
    } catch (error) {
      responder.emit({ type: 'renderer-failed', id: entry.id, error });
    }
  });
  return {
    accepted(id, prompt, connection) {
      const elicitationId = prompt.elicitationId;
      if (elicitationId === undefined || connection.aborted) return;
      const entry = { id, prompt };
      open.set(elicitationId, entry);
      // A connection that ends takes its questions with it: a later connection cannot close them.
      connection.addEventListener(
        'abort',
        () => {
          if (open.get(elicitationId) === entry) open.delete(elicitationId);
        },
        { once: true },
      );
    },
    finished(elicitationId, signal) {
      if (done.has(elicitationId)) return Promise.resolve(true);
      if (signal.aborted) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const wake = () => {
          signal.removeEventListener('abort', stop);
          resolve(true);
        };
        const stop = () => {
          waiting.get(elicitationId)?.delete(wake);
          resolve(false);
        };
        const set = waiting.get(elicitationId) ?? new Set();
        set.add(wake);
        waiting.set(elicitationId, set);
        signal.addEventListener('abort', stop, { once: true });
      });
    },
  };
}
