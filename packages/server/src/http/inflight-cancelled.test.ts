/**
 * A 2025 request counts against `maxInFlightPerIdentity` until it can no longer produce a
 * response. A call the client cancels (`notifications/cancelled`) never gets one — the SDK drops
 * it, as the spec says — so the cancel itself frees its place: exactly once, whether or not its
 * response was already on its way, and never for an id that is not in flight on that session.
 * Real SDK clients and raw HTTP on loopback, and the session table by itself for the races.
 */
import { Client } from '@modelcontextprotocol/client';
import type { RequestId } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { legacySession, sseMessages } from '../../../../test/support/sse.js';
import { httpTransport, type Loopback, loopback } from '../../test/loopback.js';
import { createMemoryEventStore } from './event-store.js';
import { type TransportSession, TransportSessionTable } from './transport-sessions.js';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function start(options: Parameters<typeof loopback>[0]): Promise<Loopback> {
  const server = await loopback({ authenticated: true, ...options });
  closing.push(() => server.close());
  return server;
}

/** A 2025-11-25 client whose person never answers; each question is reported asked, then withdrawn. */
async function cancellingClient(url: string) {
  const client = new Client({ name: 'canceller', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  let onAsked: (() => void) | undefined;
  let onWithdrawn: (() => void) | undefined;
  client.setRequestHandler('elicitation/create', async (_request, ctx) => {
    onAsked?.();
    return new Promise((_resolve, reject) => {
      ctx.mcpReq.signal.addEventListener('abort', () => {
        onWithdrawn?.();
        reject(new Error('withdrawn'));
      });
    });
  });
  await client.connect(httpTransport(url, 'alice'));
  closing.push(() => client.close());
  /** Calls deploy, cancels it once its question is shown, and resolves once the server withdrew the question. */
  const callAndCancel = async () => {
    const asked = new Promise<void>((resolve) => {
      onAsked = resolve;
    });
    const withdrawn = new Promise<void>((resolve) => {
      onWithdrawn = resolve;
    });
    const abort = new AbortController();
    const call = client
      .callTool({ name: 'deploy', arguments: { service: 'order-service' } }, { signal: abort.signal })
      .catch((error: unknown) => error);
    // A call refused (429) ends without asking: said as such, not waited on.
    const first = await Promise.race([asked.then(() => 'asked'), call]);
    if (first !== 'asked') throw new Error(`the call was not asked: ${String(first)}`);
    abort.abort('the user closed the dialog');
    await withdrawn;
    await call;
  };
  return { client, callAndCancel };
}

const deployCall = (id: RequestId) => ({
  id,
  method: 'tools/call',
  params: { name: 'deploy', arguments: { service: 'order-service' } },
});
const cancel = (requestId: RequestId) => ({
  method: 'notifications/cancelled',
  params: { requestId, reason: 'closed' },
});

/** A raw session of alice's; `call` posts deploy and waits until its question is on the stream (the stream left open). */
async function aliceSession(url: string) {
  const session = await legacySession(url, { authorization: 'Bearer alice' });
  const call = async (id: RequestId) => {
    const response = await session.post(deployCall(id));
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      return response.status;
    }
    closing.push(() => response.body?.cancel().catch(() => {}) ?? Promise.resolve());
    const messages = sseMessages(response);
    for (let m = await messages.next(); m !== undefined; m = await messages.next())
      if (m.method === 'elicitation/create') return 200;
    throw new Error(`call ${id}: its stream ended before its question`);
  };
  const notify = async (message: Record<string, unknown> | Record<string, unknown>[]) => {
    const response = await session.post(message);
    await response.body?.cancel().catch(() => {});
    return response.status;
  };
  return { ...session, call, notify };
}

for (const resumable of [false, true]) {
  describe(`cancelled 2025 calls and the in-flight cap, SDK client (${resumable ? 'with' : 'without'} an event store)`, () => {
    it('a call the client cancelled no longer counts against its identity', async () => {
      const server = await start({
        maxInFlightPerIdentity: 2,
        ...(resumable ? { eventStore: createMemoryEventStore() } : {}),
      });
      const { client, callAndCancel } = await cancellingClient(server.url);
      await callAndCancel();
      await callAndCancel();
      await callAndCancel();
      // Nothing is in flight: the session answers, and a call is asked again.
      await expect(client.ping()).resolves.toBeDefined();
      await callAndCancel();
    });
  });
}

describe('cancelled 2025 calls and the in-flight cap, raw HTTP', () => {
  it('a cancel frees its place at once; cancelling it again frees nothing more', async () => {
    const server = await start({ maxInFlightPerIdentity: 2 });
    const alice = await aliceSession(server.url);
    expect(await alice.call(1)).toBe(200);
    expect(await alice.call(2)).toBe(200);
    expect(await alice.call(3)).toBe(429);
    expect(await alice.notify(cancel(1))).toBe(202);
    expect(await alice.notify(cancel(1))).toBe(202);
    expect(await alice.call(3)).toBe(200);
    // Calls 2 and 3 hold both places: the second cancel of 1 freed nothing.
    expect(await alice.call(4)).toBe(429);
  });

  it('a cancel for an id not in flight, or in flight on another session, frees nothing', async () => {
    const server = await start({ maxInFlightPerIdentity: 2 });
    const alice = await aliceSession(server.url);
    const other = await aliceSession(server.url);
    expect(await alice.call(1)).toBe(200);
    expect(await alice.call(2)).toBe(200);
    expect(await alice.notify(cancel(99))).toBe(202);
    expect(await alice.notify(cancel('1'))).toBe(202);
    // The same identity's other session names alice's ids: they are not its own.
    expect(await other.notify([cancel(1), cancel(2)])).toBe(202);
    expect(await other.call(1)).toBe(429);
    expect(await alice.call(3)).toBe(429);
  });

  it('a malformed cancel, which the server does not act on, frees nothing', async () => {
    const server = await start({ maxInFlightPerIdentity: 1 });
    const alice = await aliceSession(server.url);
    expect(await alice.call(1)).toBe(200);
    await alice.notify({ method: 'notifications/cancelled', params: { requestId: 1, reason: 42 } });
    await alice.notify({ method: 'notifications/cancelled', params: {} });
    expect(await alice.call(2)).toBe(429);
  });

  it('batches: cancels in one POST each free their place; a call cancelled in its own batch holds none', async () => {
    // With a store, the batch's stream starts with its priming event: its response comes at once
    // though call 3 never answers.
    const server = await start({ maxInFlightPerIdentity: 2, eventStore: createMemoryEventStore() });
    const alice = await aliceSession(server.url);
    expect(await alice.call(1)).toBe(200);
    expect(await alice.call(2)).toBe(200);
    expect(await alice.notify([cancel(1), cancel(2)])).toBe(202);
    const both = await alice.post([deployCall(3), cancel(3)]);
    expect(both.status).toBe(200);
    await both.body?.cancel().catch(() => {});
    expect(await alice.call(4)).toBe(200);
    expect(await alice.call(5)).toBe(200);
    expect(await alice.call(6)).toBe(429);
  });

  it('a cancel and a request reusing its id in one batch are refused together', async () => {
    const server = await start({ maxInFlightPerIdentity: 2 });
    const alice = await aliceSession(server.url);
    expect(await alice.call(1)).toBe(200);
    const reused = await alice.post([cancel(1), deployCall(1)]);
    expect(reused.status).toBe(400);
    await reused.body?.cancel().catch(() => {});
    // The cancel was not delivered either: call 1 still holds its place.
    expect(await alice.call(2)).toBe(200);
    expect(await alice.call(3)).toBe(429);
  });
});

describe('the session table: a cancel racing the response', () => {
  const table = () =>
    new TransportSessionTable(
      { maxSessions: 10, maxSessionsPerIdentity: 10, maxInFlightPerIdentity: 2, idleMs: 0, abandonMs: 60_000 },
      () => 1000,
      async () => {},
    );
  const session = (t: TransportSessionTable): TransportSession => {
    const entry = { id: 's1', identity: 'alice', inFlight: 0, streams: 0, seen: 0, dropped: false } as never;
    t.add(entry);
    return entry;
  };
  const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

  it('a response already under way when the cancel comes frees the place once, and the id when sent', async () => {
    const t = table();
    const entry = session(t);
    const ended = t.beginCall(entry, [1, 2], false);
    const sent = t.responding(entry, 1);
    t.withdraw(entry, [1]);
    expect(entry.inFlight).toBe(1);
    await nextTurn();
    // Still being sent: the id is not free for another request yet.
    expect(t.reusedId(entry, [1])).toBe(1);
    sent();
    ended(false);
    expect(entry.inFlight).toBe(0);
    expect(t.mayStart('alice', 2)).toBe(true);
    expect(t.mayStart('alice', 3)).toBe(false);
    expect(t.reusedId(entry, [1])).toBeUndefined();
  });

  it('a response sent just after the cancel (before the server saw it) frees nothing more, nor a reuse of its id', async () => {
    const t = table();
    const entry = session(t);
    t.beginCall(entry, [1], true);
    t.withdraw(entry, [1]);
    // Until the server has surely seen the cancel, the id stays in use.
    expect(t.reusedId(entry, [1])).toBe(1);
    const sent = t.responding(entry, 1);
    sent();
    expect(entry.inFlight).toBe(0);
    t.beginCall(entry, [1], true);
    expect(entry.inFlight).toBe(1);
    // Another late end of the cancelled call leaves the new one counted.
    t.withdraw(entry, [7]);
    t.responding(entry, 7)();
    expect(entry.inFlight).toBe(1);
  });

  it('a cancel for an id not in flight is kept for its request (at most 64 a session, a minute each), and taken once', () => {
    let now = 1000;
    const t = new TransportSessionTable(
      { maxSessions: 10, maxSessionsPerIdentity: 10, maxInFlightPerIdentity: 10, idleMs: 60_000, abandonMs: 60_000 },
      () => now,
      async () => {},
    );
    const entry = session(t);
    t.withdraw(entry, [1, 'one']);
    expect(t.cancelledBefore(entry, [2, 1, '1'])).toEqual([1]);
    // Taken once: the same id again (which MCP forbids) is not cancelled twice.
    expect(t.cancelledBefore(entry, [1])).toEqual([]);
    // A minute later, what was not taken is forgotten.
    now += 60_001;
    expect(t.cancelledBefore(entry, ['one'])).toEqual([]);
    // At most 64 a session: the oldest go first.
    for (let id = 100; id < 200; id++) t.withdraw(entry, [id]);
    expect(entry.cancelledEarly?.size).toBe(64);
    expect(t.cancelledBefore(entry, [135, 136, 199])).toEqual([136, 199]);
  });

  it('a cancelled call frees its id after a turn of the event loop once its stream ended, and its session is idle then', async () => {
    const t = table();
    const entry = session(t);
    const ended = t.beginCall(entry, [1], false);
    t.withdraw(entry, [1]);
    await nextTurn();
    // Its POST's stream is still open, and closed by that id once settled: not free yet.
    expect(t.reusedId(entry, [1])).toBe(1);
    ended(false);
    await nextTurn();
    expect(t.reusedId(entry, [1])).toBeUndefined();
    expect(entry.inFlight).toBe(0);
    t.sweepIdle();
    expect(t.size).toBe(0);
  });

  it('with an event store, a cancelled call keeps its id while its session lasts (its stream can be resumed, and closed by it), yet its session is idle', async () => {
    const t = table();
    const entry = session(t);
    const ended = t.beginCall(entry, [1], true);
    t.withdraw(entry, [1]);
    ended(true);
    await nextTurn();
    expect(t.reusedId(entry, [1])).toBe(1);
    expect(entry.inFlight).toBe(0);
    t.sweepIdle();
    expect(t.size).toBe(0);
  });
});

describe('a cancel that reaches the server before its call', () => {
  it('answered before its call came (relayed another way, or simply first), it cancels the call as it arrives: its question withdrawn, its place freed', async () => {
    const server = await start({ maxInFlightPerIdentity: 1 });
    const alice = await aliceSession(server.url);
    expect(await alice.notify(cancel(1))).toBe(202);
    // Its stream sends nothing (its one request is cancelled): not waited on, closed at the end.
    const gone = new AbortController();
    void alice.post(deployCall(1), {}, gone.signal).catch(() => {});
    closing.push(async () => gone.abort());
    await expect
      .poll(() => server.log.events.find((e) => e.type === 'response' && e.key === 'env'), { timeout: 5_000 })
      .toMatchObject({ action: 'cancel', reason: 'client-cancelled' });
    expect(await alice.call(2)).toBe(200);
    // Another id is not touched by it.
    expect(server.log.events.filter((e) => e.type === 'response')).toHaveLength(1);
  });

  it('posted together with its call (the transport hands the server a notification a step before a request), it still cancels the call: its question withdrawn, its place freed', async () => {
    const server = await start({ maxInFlightPerIdentity: 1 });
    const alice = await aliceSession(server.url);
    const onSession = (message: Record<string, unknown>) =>
      new Request(server.url, {
        method: 'POST',
        headers: {
          host: new URL(server.url).host,
          authorization: 'Bearer alice',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': alice.sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', ...message }),
      });
    // Both in one turn, through the handler's fetch face: as two POSTs arriving together are.
    const [call, cancelled] = await Promise.all([
      server.handler.fetch(onSession(deployCall(1))),
      server.handler.fetch(onSession(cancel(1))),
    ]);
    expect(cancelled.status).toBe(202);
    expect(call.status).toBe(200);
    closing.push(() => call.body?.cancel().catch(() => {}) ?? Promise.resolve());
    // Without it given again, the call runs on, its question waiting on a person who cancelled.
    await expect
      .poll(() => server.log.events.find((e) => e.type === 'response' && e.key === 'env'), { timeout: 5_000 })
      .toMatchObject({ action: 'cancel', reason: 'client-cancelled' });
    expect(await alice.call(2)).toBe(200);
  });
});
