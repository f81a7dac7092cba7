/**
 * A 2025 POST whose requests are each answered or cancelled ends its SSE stream. MCP gives a
 * cancelled request no response, and the SDK transport ends a POST's stream only after a
 * response for each of its requests: a POST with a cancelled request streamed keep-alives until
 * the client went away (its headers, through Node, only with the first one, 15 s on). Each case
 * through both adapters, with and without an event store, over real HTTP: raw POSTs where the
 * order of a cancel and its call is the test's, the SDK client where it is the client's.
 *
 * Nothing here waits for a time to pass: a stream that does not end never ends (the keep-alive
 * does not end it either), and `GUARD_MS` only turns that into a failure.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { RequestId } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { legacySession, sseMessages } from '../../../../test/support/sse.js';
import { ADAPTERS, httpTransport, type Loopback, loopback, patientClient, startDeploy } from '../../test/loopback.js';
import { createMemoryEventStore } from './event-store.js';

/** Far below the SDK's 15 s keep-alive, which is when Node sends the headers of a stream that sends nothing. */
const GUARD_MS = 8_000;

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close().catch(() => {});
});

const deploy = (id: RequestId) => ({
  id,
  method: 'tools/call',
  params: { name: 'deploy', arguments: { service: 'order-service' } },
});
/** A call answered at once (it asks nothing). */
const list = (id: RequestId) => ({ id, method: 'tools/call', params: { name: 'deployments', arguments: {} } });
const cancel = (requestId: RequestId) => ({
  method: 'notifications/cancelled',
  params: { requestId, reason: 'the user closed the dialog' },
});

/** Resolves with `work`, or rejects once `GUARD_MS` passed: `what` did not end. */
async function guarded<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still open after ${GUARD_MS} ms`)), GUARD_MS);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads a POST's SSE response to its end: its JSON-RPC messages. */
async function toTheEnd(response: Response): Promise<Record<string, unknown>[]> {
  const messages = sseMessages(response);
  const all: Record<string, unknown>[] = [];
  for (let m = await messages.next(); m !== undefined; m = await messages.next()) all.push(m);
  return all;
}

/** The ids of the responses among `messages`. */
const answered = (messages: Record<string, unknown>[]) =>
  messages.filter((m) => 'result' in m || 'error' in m).map((m) => m.id);

/** Reads an SSE response event by event: each event's id and JSON-RPC message, where it has them. */
function sseEvents(response: Response) {
  const reader = (response.body ?? new ReadableStream<Uint8Array>()).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next(): Promise<{ id?: string; message?: Record<string, unknown> } | undefined> {
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
          if (!id && !data) continue;
          return { ...(id ? { id } : {}), ...(data ? { message: JSON.parse(data) } : {}) };
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

const variants = ADAPTERS.flatMap((adapter) => [
  { adapter, resumable: false },
  { adapter, resumable: true },
]);

describe.each(variants)('a POST whose requests are all answered or cancelled ends (%o)', ({ adapter, resumable }) => {
  /** An endpoint where alice may have `cap` requests in flight, and a raw session of hers on it. */
  async function aliceOn(cap: number) {
    const store = resumable ? createMemoryEventStore() : undefined;
    const server: Loopback = await loopback({
      adapter,
      authenticated: true,
      maxInFlightPerIdentity: cap,
      ...(store ? { eventStore: store } : {}),
    });
    closing.push(() => server.close());
    const session = await legacySession(server.url, { authorization: 'Bearer alice' });
    /** Posts `message` and reads its response to the end (guarded). */
    const exchange = (message: Record<string, unknown> | Record<string, unknown>[]) =>
      guarded(
        `the POST of ${JSON.stringify(message)}`,
        session.post(message).then(async (response) => {
          expect(response.status).toBe(200);
          expect(response.headers.get('content-type')).toBe('text/event-stream');
          return toTheEnd(response);
        }),
      );
    /** Nothing is counted in flight: `cap` new calls start at once, each asked its question. */
    const nothingHeld = async (firstId: number) => {
      const ids = Array.from({ length: cap }, (_, i) => firstId + i);
      const response = await session.post(ids.map(deploy));
      expect(response.status).toBe(200);
      const messages = sseMessages(response);
      let asked = 0;
      while (asked < cap) {
        const m = await messages.next();
        if (m === undefined) throw new Error('the calls ended before each was asked');
        if (m.method === 'elicitation/create') asked++;
      }
      await response.body?.cancel().catch(() => {});
    };
    /** A resumption of the stream `lastEventId` is of (GET with Last-Event-ID), raw. */
    const resume = (lastEventId: string) =>
      fetch(server.url, {
        headers: {
          authorization: 'Bearer alice',
          accept: 'text/event-stream',
          'mcp-session-id': session.sessionId,
          'mcp-protocol-version': '2025-11-25',
          'last-event-id': lastEventId,
        },
      });
    /** `resume`, sent again while answered 409 (until the server has seen the stream's connection drop). */
    const resumeOnceDropped = async (lastEventId: string) => {
      let response = await resume(lastEventId);
      while (response.status === 409) {
        await response.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 10));
        response = await resume(lastEventId);
      }
      return response;
    };
    let spare = 1000;
    /** Resolves once nothing is counted in flight (`cap` calls answered at once get in, not 429). */
    const untilNothingHeld = () =>
      guarded(
        'the places held',
        (async () => {
          for (;;) {
            const batch = Array.from({ length: cap }, () => list(spare++));
            const response = await session.post(batch);
            if (response.status === 200) return void (await toTheEnd(response));
            expect(response.status).toBe(429);
            await response.body?.cancel();
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        })(),
      );
    /**
     * Holds the store's next replay until `release`: what a slow store (Redis) does, made a step the
     * test takes. `started` once the transport is in it.
     */
    const holdReplays = () => {
      if (!store) throw new Error('no event store');
      const replay = store.replayEventsAfter.bind(store);
      let started!: () => void;
      let release!: () => void;
      const entered = new Promise<void>((resolve) => {
        started = resolve;
      });
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      store.replayEventsAfter = async (lastEventId, sink) => {
        store.replayEventsAfter = replay;
        started();
        await gate;
        return replay(lastEventId, sink);
      };
      return { started: entered, release };
    };
    return { server, session, exchange, nothingHeld, resume, resumeOnceDropped, untilNothingHeld, holdReplays };
  }

  /** Reads `events` until `count` questions came: the events read. */
  async function untilAsked(events: ReturnType<typeof sseEvents>, count: number) {
    const seen: { id?: string; message?: Record<string, unknown> }[] = [];
    while (seen.filter((e) => e.message?.method === 'elicitation/create').length < count) {
      const event = await guarded('the questions', events.next());
      if (event === undefined) throw new Error('the stream ended before its calls asked');
      seen.push(event);
    }
    return seen;
  }

  /** Reads `events` to their end (guarded): the events read. */
  async function theRest(what: string, events: ReturnType<typeof sseEvents>) {
    const rest: { id?: string; message?: Record<string, unknown> }[] = [];
    await guarded(
      what,
      (async () => {
        for (let e = await events.next(); e !== undefined; e = await events.next()) rest.push(e);
      })(),
    );
    return rest;
  }

  const messagesOf = (events: { message?: Record<string, unknown> }[]) =>
    events.flatMap((e) => (e.message ? [e.message] : []));
  const lastIdOf = (events: { id?: string }[]) => events.filter((e) => e.id).at(-1)?.id as string;

  it('(a) a request cancelled in an earlier POST: its own POST ends, with no response', async () => {
    const alice = await aliceOn(1);
    expect((await alice.session.post(cancel(1))).status).toBe(202);
    expect(answered(await alice.exchange(deploy(1)))).toEqual([]);
    await alice.nothingHeld(2);
  });

  it('(b) a request and its cancel posted in the same turn: the request’s POST ends, whichever came first', async () => {
    const alice = await aliceOn(1);
    const [messages, cancelled] = await Promise.all([
      alice.exchange(deploy(1)),
      alice.session.post(cancel(1)).then((r) => r.status),
    ]);
    expect(cancelled).toBe(202);
    expect(answered(messages)).toEqual([]);
    await alice.nothingHeld(2);
  });

  it('(c) a batch whose requests were all cancelled before it came ends, with no response', async () => {
    const alice = await aliceOn(2);
    expect((await alice.session.post([cancel(1), cancel(2)])).status).toBe(202);
    expect(answered(await alice.exchange([deploy(1), deploy(2)]))).toEqual([]);
    await alice.nothingHeld(3);
  });

  it('(c) a batch that cancels its own request ends, with no response', async () => {
    const alice = await aliceOn(1);
    expect(answered(await alice.exchange([deploy(1), cancel(1)]))).toEqual([]);
    await alice.nothingHeld(2);
  });

  it('(d) a batch with one request cancelled carries the others’ responses, then ends', async () => {
    const alice = await aliceOn(3);
    expect((await alice.session.post(cancel(1))).status).toBe(202);
    expect(answered(await alice.exchange([deploy(1), list(2), list(3)]))).toEqual([2, 3]);
    await alice.nothingHeld(4);
  });

  it('(d) a batch whose last open request is cancelled mid-flight ends once the cancel comes', async () => {
    const alice = await aliceOn(2);
    const response = await alice.session.post([deploy(1), list(2)]);
    expect(response.status).toBe(200);
    const messages = sseMessages(response);
    const seen: Record<string, unknown>[] = [];
    // The call answered, and the other asking its question: only the cancel is left to end it.
    while (!(seen.some((m) => m.id === 2) && seen.some((m) => m.method === 'elicitation/create'))) {
      const m = await messages.next();
      if (m === undefined) throw new Error('the batch ended before its call asked');
      seen.push(m);
    }
    expect((await alice.session.post(cancel(1))).status).toBe(202);
    const rest: Record<string, unknown>[] = [];
    await guarded(
      'the batch after its cancel',
      (async () => {
        for (let m = await messages.next(); m !== undefined; m = await messages.next()) rest.push(m);
      })(),
    );
    expect(answered(rest)).toEqual([]);
    await alice.nothingHeld(3);
  });

  it('(e) a request cancelled while its question is open: its POST ends once the cancel is taken', async () => {
    const alice = await aliceOn(1);
    const response = await alice.session.post(deploy(1));
    const messages = sseMessages(response);
    for (let m = await messages.next(); m?.method !== 'elicitation/create'; m = await messages.next())
      if (m === undefined) throw new Error('the call ended before it asked');
    expect((await alice.session.post(cancel(1))).status).toBe(202);
    await guarded(
      'the call’s POST after its cancel',
      (async () => {
        for (let m = await messages.next(); m !== undefined; m = await messages.next())
          if ('result' in m || 'error' in m) throw new Error('a cancelled call was answered');
      })(),
    );
    await alice.nothingHeld(2);
  });

  it.runIf(resumable)(
    '(f) a stream ended so, resumed with Last-Event-ID, is refused at once; one whose call waits is resumed',
    async () => {
      const alice = await aliceOn(2);
      const resume = (lastEventId: string) =>
        guarded(
          `the resumption after ${lastEventId}`,
          fetch(alice.server.url, {
            headers: {
              authorization: 'Bearer alice',
              accept: 'text/event-stream',
              'mcp-session-id': alice.session.sessionId,
              'mcp-protocol-version': '2025-11-25',
              'last-event-id': lastEventId,
            },
          }),
        );
      // Cancelled before it came (only its priming event), and a batch with one answered.
      expect((await alice.session.post([cancel(1), cancel(2)])).status).toBe(202);
      for (const body of [deploy(1), [deploy(2), list(3)]]) {
        const text = await guarded(
          'the POST',
          alice.session.post(body).then((r) => r.text()),
        );
        const last = [...text.matchAll(/^id: (.+)$/gm)].at(-1)?.[1];
        expect(last).toBeDefined();
        const refused = await resume(last as string);
        expect(refused.status).toBe(405);
        expect(await refused.json()).toMatchObject({ error: { message: expect.stringContaining('is over') } });
      }
      // A call still waiting on its question, its stream dropped: resumed as before.
      const waiting = await alice.session.post(deploy(4));
      const reader = (waiting.body as ReadableStream<Uint8Array>).getReader();
      let seen = '';
      while (!seen.includes('elicitation/create')) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the call ended before it asked');
        seen += new TextDecoder().decode(value);
      }
      await reader.cancel();
      // From its priming event, so the question is replayed (a replay with nothing in it sends its
      // headers, through Node, only with the first keep-alive).
      const first = [...seen.matchAll(/^id: (.+)$/gm)].at(0)?.[1] as string;
      // 409 until the server has seen the stream drop (the transport allows one connection a stream).
      let resumedStream = await resume(first);
      while (resumedStream.status === 409) {
        await resumedStream.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 10));
        resumedStream = await resume(first);
      }
      expect(resumedStream.status).toBe(200);
      const replayed = sseMessages(resumedStream);
      expect(await guarded('the replayed question', replayed.next())).toMatchObject({ method: 'elicitation/create' });
    },
  );

  it.runIf(resumable)(
    '(f) a call whose stream dropped and was resumed, then cancelled: the resumed stream ends, and is over',
    async () => {
      const alice = await aliceOn(1);
      const resume = (lastEventId: string) =>
        fetch(alice.server.url, {
          headers: {
            authorization: 'Bearer alice',
            accept: 'text/event-stream',
            'mcp-session-id': alice.session.sessionId,
            'mcp-protocol-version': '2025-11-25',
            'last-event-id': lastEventId,
          },
        });
      const call = await alice.session.post(deploy(1));
      const reader = (call.body as ReadableStream<Uint8Array>).getReader();
      let seen = '';
      while (!seen.includes('elicitation/create')) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the call ended before it asked');
        seen += new TextDecoder().decode(value);
      }
      await reader.cancel();
      const first = [...seen.matchAll(/^id: (.+)$/gm)].at(0)?.[1] as string;
      // 409 until the server has seen the stream drop (the transport allows one connection a stream).
      let resumed = await guarded('the resumption', resume(first));
      while (resumed.status === 409) {
        await resumed.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 10));
        resumed = await guarded('the resumption', resume(first));
      }
      expect(resumed.status).toBe(200);
      const replayed = sseEvents(resumed);
      const question = await guarded('the replayed question', replayed.next());
      expect(question?.message).toMatchObject({ method: 'elicitation/create' });
      expect((await alice.session.post(cancel(1))).status).toBe(202);
      // The server withdraws its question on it (its own cancel), and then it ends, with no response.
      const after = await theRest('the resumed stream after the cancel', replayed);
      expect(answered(messagesOf(after))).toEqual([]);
      // Resumed from the last event the client saw: nothing is left on it, refused.
      const last = lastIdOf([question ?? {}, ...after]);
      expect((await guarded('a second resumption', resume(last))).status).toBe(405);
      await alice.nothingHeld(2);
    },
  );

  it.runIf(resumable)(
    '(g) a reply stored while the stream was dropped, the stream then ended by a cancel: resumed, the reply is replayed and the stream ends; resumed again, 405',
    async () => {
      const alice = await aliceOn(2);
      const batch = sseEvents(await alice.session.post([deploy(1), deploy(2)]));
      const seen = await untilAsked(batch, 2);
      await batch.cancel();
      expect((await alice.session.post(cancel(2))).status).toBe(202);
      // Each question answered (the cancelled call's answer is nothing to it): call 1 replies,
      // stored, with no connection to carry it, and its POST's stream is over.
      for (const question of messagesOf(seen).filter((m) => m.method === 'elicitation/create'))
        expect((await alice.session.post({ id: question.id, result: { action: 'decline' } })).status).toBe(202);
      await alice.untilNothingHeld();
      const resumed = await guarded('the resumption', alice.resumeOnceDropped(lastIdOf(seen)));
      expect(resumed.status).toBe(200);
      const replayed = await theRest('the resumed stream', sseEvents(resumed));
      expect(answered(messagesOf(replayed))).toEqual([1]);
      // Nothing is left on it after what was replayed: refused.
      expect((await guarded('a second resumption', alice.resume(lastIdOf(replayed)))).status).toBe(405);
    },
  );

  it.runIf(resumable)(
    '(g) a resumption under way when the cancel ends its stream (the store still replaying) ends too',
    async () => {
      const alice = await aliceOn(1);
      const call = sseEvents(await alice.session.post(deploy(1)));
      const seen = await untilAsked(call, 1);
      await call.cancel();
      const replaying = alice.holdReplays();
      const resumed = guarded('the resumption', alice.resumeOnceDropped(lastIdOf(seen)));
      await guarded('the replay', replaying.started);
      // The stream has no connection now: closing it finds none to close.
      expect((await alice.session.post(cancel(1))).status).toBe(202);
      replaying.release();
      const response = await resumed;
      expect(response.status).toBe(200);
      const after = await theRest('the resumption after the cancel', sseEvents(response));
      expect(answered(messagesOf(after))).toEqual([]);
      await alice.nothingHeld(2);
    },
  );

  it('(h) a cancel ends its own POST’s stream, not that of a later POST reusing an id of it', async () => {
    const alice = await aliceOn(3);
    const a = sseEvents(await alice.session.post([list(1), deploy(2)]));
    const seenA: Record<string, unknown>[] = [];
    while (!(seenA.some((m) => m.id === 1) && seenA.some((m) => m.method === 'elicitation/create'))) {
      const event = await guarded('A’s response and question', a.next());
      if (event === undefined) throw new Error('A ended before its call asked');
      if (event.message) seenA.push(event.message);
    }
    // Call 1 answered, its id free again (MCP forbids reusing it; a client may).
    const bResponse = await alice.session.post(deploy(1));
    expect(bResponse.status).toBe(200);
    const b = sseEvents(bResponse);
    const question = messagesOf(await untilAsked(b, 1)).find((m) => m.method === 'elicitation/create');
    expect((await alice.session.post(cancel(2))).status).toBe(202);
    expect(answered(messagesOf(await theRest('A after its cancel', a)))).toEqual([]);
    // B goes on: its question answered, it replies and ends.
    expect((await alice.session.post({ id: question?.id, result: { action: 'decline' } })).status).toBe(202);
    expect(answered(messagesOf(await theRest('B after its answer', b)))).toEqual([1]);
  });

  it('(h) the id of a cancelled request is in use while its POST’s stream goes on', async () => {
    const alice = await aliceOn(3);
    const a = sseEvents(await alice.session.post([deploy(1), deploy(2)]));
    const questions = messagesOf(await untilAsked(a, 2)).filter((m) => m.method === 'elicitation/create');
    expect((await alice.session.post(cancel(2))).status).toBe(202);
    const reused = await alice.session.post(deploy(2));
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({
      error: { message: expect.stringContaining('request id 2 is already in use') },
    });
    // Each question answered (the cancelled call's answer is nothing to it): call 1 replies, and A ends.
    for (const q of questions)
      expect((await alice.session.post({ id: q.id, result: { action: 'decline' } })).status).toBe(202);
    expect(answered(messagesOf(await theRest('A after its answers', a)))).toEqual([1]);
  });

  /**
   * A fetch for the SDK client that tells when each POST response (and each resumption of one) it
   * got has ended (read to its end: the client reads each so, or cancels it only when it closes).
   * `beforePost` sees each POST's body as it goes out.
   */
  function watchedFetch(beforePost?: (body: string) => void) {
    const open = new Set<Promise<void>>();
    let resumedOnce!: (status: number) => void;
    /** The status of the first resumption (GET with Last-Event-ID), once its response ended. */
    const resumed = new Promise<number>((resolve) => {
      resumedOnce = resolve;
    });
    const fetchFn: typeof fetch = async (input, init) => {
      const resuming = new Headers(init?.headers).has('last-event-id');
      if (init?.method !== 'POST' && !resuming) return fetch(input, init);
      if (init?.method === 'POST') beforePost?.(String(init.body));
      // Open from the moment it is sent: through Node, a stream's headers come with its first bytes.
      let ended!: () => void;
      const end = new Promise<void>((resolve) => {
        ended = resolve;
      });
      open.add(end);
      void end.then(() => open.delete(end));
      const response = await fetch(input, init).catch((error: unknown) => {
        ended();
        throw error;
      });
      if (resuming) void end.then(() => resumedOnce(response.status));
      if (!response.body) {
        ended();
        return response;
      }
      const body = response.body.pipeThrough(new TransformStream({ flush: () => ended() }));
      return new Response(body, { status: response.status, headers: response.headers });
    };
    /** Resolves once every POST response (and resumption) so far has ended. */
    const allEnded = () => Promise.all([...open]).then(() => undefined);
    return { fetchFn, allEnded, resumed };
  }

  /** A 2025-11-25 SDK client of alice's whose person never answers, on an endpoint where she may have `cap` requests in flight. */
  async function sdkClient(cap: number, beforePost?: (body: string) => void) {
    const server = await loopback({
      adapter,
      authenticated: true,
      maxInFlightPerIdentity: cap,
      // A client resumes a stream that closed without a response after `retry`.
      ...(resumable ? { eventStore: createMemoryEventStore(), retryMs: 20 } : {}),
    });
    closing.push(() => server.close());
    const watched = watchedFetch(beforePost);
    const patient = patientClient('canceller');
    await patient.client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: 'Bearer alice' } },
        fetch: watched.fetchFn,
      }),
    );
    closing.push(() => patient.client.close());
    /** Nothing is counted in flight: another client of alice's is asked its question. */
    const nothingHeld = async () => {
      const next = patientClient('next');
      await next.client.connect(httpTransport(server.url, 'alice'));
      closing.push(() => next.client.close());
      void startDeploy(next.client);
      await guarded('the next call’s question', next.asked);
    };
    return { ...patient, ...watched, nothingHeld };
  }

  it('(e) SDK client: a call cancelled while its question is open leaves no POST open, and no place held', async () => {
    const { client, asked, withdrawn, allEnded, resumed, nothingHeld } = await sdkClient(1);
    const abort = new AbortController();
    const call = startDeploy(client, abort.signal);
    await asked;
    abort.abort('the user closed the dialog');
    await withdrawn;
    await call;
    await guarded('the cancelled call’s POST', allEnded());
    // Its stream had event ids: the client resumes it, and is told at once that it is over.
    if (resumable) expect(await guarded('the resumption of the cancelled call’s stream', resumed)).toBe(405);
    await nothingHeld();
  });

  it('(b) SDK client: a call cancelled as its request goes out (two POSTs in one turn) leaves no POST open, and no place held', async () => {
    let abort: AbortController | undefined;
    const { client, allEnded, resumed, nothingHeld } = await sdkClient(1, (body) => {
      if (body.includes('"tools/call"')) queueMicrotask(() => abort?.abort('changed my mind'));
    });
    for (let i = 0; i < 3; i++) {
      abort = new AbortController();
      await startDeploy(client, abort.signal);
    }
    await guarded('the cancelled calls’ POSTs', allEnded());
    if (resumable) expect(await guarded('the resumption of a cancelled call’s stream', resumed)).toBe(405);
    await guarded('the resumptions', allEnded());
    await nothingHeld();
  });
});
