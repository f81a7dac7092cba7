/**
 * A resumable session whose client dropped a call's stream is closed after `abandonedSessionMs`
 * unless the client comes back — opens a stream again (resumes with Last-Event-ID, or posts a new
 * call). A request that opens none (a resumption refused: an event id the store does not know, a
 * 405 for a stream that is over) is no coming back: the client that sent it and then left was
 * taken as present, and its session, its open question and its place in flight were kept until
 * the question timed out (10 minutes by default) instead of `abandonedSessionMs`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { legacySession, sseMessages } from '../../../../test/support/sse.js';
import { type Loopback, loopback } from '../../test/loopback.js';
import { createMemoryEventStore } from './event-store.js';

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a resumable session whose client dropped a call', () => {
  it('is closed after abandonedSessionMs though a refused resumption came meanwhile', async () => {
    server = await loopback({ authenticated: true, eventStore: createMemoryEventStore(), abandonedSessionMs: 1_000 });
    const { post, sessionId } = await legacySession(server.url, { authorization: 'Bearer alice' });
    const drop = new AbortController();
    const call = await post(
      { id: 1, method: 'tools/call', params: { name: 'deploy', arguments: { service: 'order-service' } } },
      {},
      drop.signal,
    );
    const messages = sseMessages(call);
    for (let m = await messages.next(); m?.method !== 'elicitation/create'; m = await messages.next())
      if (m === undefined) throw new Error('the call ended before it asked');
    drop.abort();
    // Once the server has seen the drop (its socket closed a moment after the abort),
    await new Promise((resolve) => setTimeout(resolve, 100));
    // the client tries to resume with an event id the store does not know, and goes away.
    const refused = await fetch(server.url, {
      headers: {
        authorization: 'Bearer alice',
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': 'no-such-event',
      },
    });
    expect(refused.status).toBe(400);
    await refused.body?.cancel();
    // Its session closed, the question ends as its client gone; kept, it would wait out its timeout.
    let guard: ReturnType<typeof setTimeout> | undefined;
    const kept = new Promise<never>((_, reject) => {
      guard = setTimeout(() => reject(new Error('the session and its question were kept')), 5_000);
    });
    const ended = await Promise.race([server.log.response('env'), kept]).finally(() => clearTimeout(guard));
    expect(ended).toMatchObject({ action: 'cancel', reason: 'disconnected' });
    expect(server.handler.sessionCount()).toBe(0);
  });
});
