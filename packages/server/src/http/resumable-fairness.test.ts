/**
 * Resumable 2025 streams and the limits per identity ("nobody can push out someone else's"): the
 * memory event store bounds each session's streams by its own, so another identity's traffic —
 * every POST is a new stream, with its priming event — never makes alice's open question
 * unresumable; alice's own traffic drops her streams that carried their response before her
 * question's; and a closed session's streams go with it. Raw HTTP on loopback, the real SDK.
 */
import type { EventStore } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { legacySession } from '../../../../test/support/sse.js';
import { type Loopback, loopback } from '../../test/loopback.js';
import { createMemoryEventStore } from './event-store.js';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** SSE events with their ids, one at a time; undefined once the stream ends. */
function sseEvents(response: Response) {
  const reader = (response.body ?? new ReadableStream<Uint8Array>()).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next(): Promise<{ id?: string; data?: Record<string, unknown> } | undefined> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const lines = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          const id = lines
            .find((l) => l.startsWith('id:'))
            ?.slice(3)
            .trim();
          const data = lines
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('');
          return { ...(id ? { id } : {}), ...(data ? { data: JSON.parse(data) } : {}) };
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

async function serve(eventStore: EventStore): Promise<Loopback> {
  const server = await loopback({ authenticated: true, retryMs: 20, eventStore });
  closing.push(() => server.close());
  return server;
}

/** A raw session of `identity`'s, with what resuming one of its streams needs. */
async function session(url: string, identity: string) {
  const s = await legacySession(url, { authorization: `Bearer ${identity}` });
  /** Reconnects with `Last-Event-ID`: the HTTP status, and the first message replayed after it. */
  const resume = async (lastEventId: string) => {
    const response = await fetch(url, {
      headers: {
        authorization: `Bearer ${identity}`,
        accept: 'text/event-stream',
        'mcp-session-id': s.sessionId,
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': lastEventId,
      },
    });
    if (response.status !== 200) return { status: response.status, text: await response.text() };
    const replay = sseEvents(response);
    const first = await replay.next();
    await replay.cancel();
    return { status: 200, method: first?.data?.method };
  };
  /** Pings `count` times, each on a stream of its own; the priming event ids, in order. */
  const ping = async (count: number, from = 1) => {
    const ids: string[] = [];
    for (let i = from; i < from + count; i++) {
      const pong = sseEvents(await s.post({ id: i, method: 'ping' }));
      ids.push(String((await pong.next())?.id));
      while (await pong.next());
    }
    return ids;
  };
  return { ...s, resume, ping };
}

/** alice calls deploy; her stream brings the priming event, then the question; then it drops. Its priming event id. */
async function questionThenDrop(alice: Awaited<ReturnType<typeof session>>): Promise<string> {
  const drop = new AbortController();
  const call = await alice.post(
    { id: 7, method: 'tools/call', params: { name: 'deploy', arguments: { service: 'order-service' } } },
    {},
    drop.signal,
  );
  const events = sseEvents(call);
  const priming = await events.next();
  expect(priming?.id).toBeTruthy();
  for (let event = await events.next(); event; event = await events.next())
    if (event.data?.method === 'elicitation/create') break;
  drop.abort();
  await events.cancel();
  return String(priming?.id);
}

describe('resumable streams and the limits per identity (memory event store)', () => {
  it("another identity's traffic does not make alice's open question unresumable; its own streams make the room", async () => {
    const server = await serve(createMemoryEventStore({ maxStreamsPerSession: 20 }));
    const alice = await session(server.url, 'alice');
    const priming = await questionThenDrop(alice);

    // mallory, another identity well within its own limits, pings on its own session.
    const mallory = await session(server.url, 'mallory');
    const pings = await mallory.ping(25);

    expect(await alice.resume(priming)).toEqual({ status: 200, method: 'elicitation/create' });
    // The bound held: mallory's oldest streams are the ones that went.
    expect((await mallory.resume(pings[0] as string)).status).toBe(400);
    expect((await mallory.resume(pings[24] as string)).status).toBe(200);
  });

  it("alice's own traffic drops her streams that carried their response before her open question's", async () => {
    const server = await serve(createMemoryEventStore({ maxStreamsPerSession: 5 }));
    const alice = await session(server.url, 'alice');
    const priming = await questionThenDrop(alice);
    const pings = await alice.ping(10, 100);
    expect(await alice.resume(priming)).toEqual({ status: 200, method: 'elicitation/create' });
    expect((await alice.resume(pings[0] as string)).status).toBe(400);
  });

  it('one identity across many sessions holds no more than the store allows: its heaviest sessions give way, alice keeps hers', async () => {
    // Each session's streams are bounded by count, but an identity may open 100 sessions, and a
    // response may be large: without a bound on the whole store one identity held as much as it
    // liked. Here the store holds 6,000 characters; mallory pings on three sessions.
    const server = await serve(createMemoryEventStore({ maxBytes: 6_000 }));
    const alice = await session(server.url, 'alice');
    const priming = await questionThenDrop(alice);
    const [alicePong] = await alice.ping(1, 50);
    const mallory = await Promise.all([1, 2, 3].map(() => session(server.url, 'mallory')));
    const pings: string[][] = [];
    for (const m of mallory) pings.push(await m.ping(60));

    // alice holds less than any of mallory's sessions: her open question and her answered stream stay.
    expect(await alice.resume(priming)).toEqual({ status: 200, method: 'elicitation/create' });
    expect((await alice.resume(alicePong as string)).status).toBe(200);
    // mallory's oldest streams went, each session's, the newest stayed.
    for (const [i, m] of mallory.entries()) {
      expect((await m.resume(pings[i]?.[0] as string)).status).toBe(400);
      expect((await m.resume(pings[i]?.[59] as string)).status).toBe(200);
    }
  });

  it("a closed session's streams go with it", async () => {
    const store = createMemoryEventStore();
    const server = await serve(store);
    const alice = await session(server.url, 'alice');
    const [pong] = await alice.ping(1);
    expect(await store.getStreamIdForEventId?.(pong as string)).toBeDefined();
    const closed = await fetch(server.url, {
      method: 'DELETE',
      headers: {
        authorization: 'Bearer alice',
        'mcp-session-id': alice.sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
    });
    expect(closed.status).toBe(200);
    expect(await store.getStreamIdForEventId?.(pong as string)).toBeUndefined();
  });
});
