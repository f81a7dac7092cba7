/**
 * Fair limits on 2025 HTTP sessions, over real HTTP on loopback with real SDK clients: sessions
 * and requests in flight are counted per identity, a session with a request in flight is never
 * evicted, nobody's session is closed to make room for another identity, and a request over a
 * limit is refused at once with HTTP 429 and a JSON-RPC error that names the limit.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { httpTransport, type Loopback, loopback, patientClient, startDeploy } from '../../test/loopback.js';
import { LIMIT_REACHED } from './replies.js';
import { TransportSessionTable } from './transport-sessions.js';

let server: Loopback | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await server?.close();
  server = undefined;
});

async function start(options: Parameters<typeof loopback>[0]) {
  server = await loopback({ authenticated: true, ...options });
  return server;
}

/** Connects a client as `identity` and keeps it for cleanup. */
async function connect<C extends { client: Client }>(c: C, identity: string, url: string): Promise<C> {
  clients.push(c.client);
  await c.client.connect(httpTransport(url, identity));
  return c;
}

/** A hand-made `initialize` over HTTP, to see the status code and headers themselves. */
function rawInitialize(url: string, identity: string, id = 1, capabilities: Record<string, unknown> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${identity}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe('fair limits on 2025 sessions', () => {
  it('300 concurrent clients over 3 identities, each under its cap: every call completes', async () => {
    const s = await start({ maxSessionsPerIdentity: 128, maxInFlightPerIdentity: 128 });
    const everyoneAsked = deferred();
    const people = ['alice', 'bob', 'carol'].flatMap((identity) =>
      Array.from({ length: 100 }, (_, i) => ({
        identity,
        ...patientClient(`${identity}-${i}`, { content: { env: 'staging' }, release: everyoneAsked.promise }),
      })),
    );
    await Promise.all(people.map((p) => connect(p, p.identity, s.url)));
    const calls = people.map((p) => startDeploy(p.client));
    // Every question is open at the same moment before anyone answers.
    await Promise.all(people.map((p) => p.asked));
    expect(s.handler.sessionCount()).toBe(300);
    everyoneAsked.resolve();
    const results = await Promise.all(calls);
    const statuses = results.map((r) => (r as { structuredContent?: { status?: string } }).structuredContent?.status);
    expect(statuses.filter((x) => x === 'done')).toHaveLength(300);
    expect(s.store.deployments).toHaveLength(300);
  }, 120_000);

  it("200 idle sessions opened by bob cannot close alice's open question", async () => {
    const s = await start({ maxSessions: 120, maxSessionsPerIdentity: 150 });
    const answer = deferred();
    const alice = await connect(
      patientClient('alice', { content: { env: 'dev' }, release: answer.promise }),
      'alice',
      s.url,
    );
    const call = startDeploy(alice.client);
    await alice.asked;
    for (let i = 0; i < 200; i++) await connect(patientClient(`bob-${i}`), 'bob', s.url);
    // Bob hit the server-wide cap, and room was only ever made among his own idle sessions.
    expect(s.handler.sessionCount()).toBe(120);
    answer.resolve();
    expect(await call).toMatchObject({ structuredContent: { status: 'done' } });
    expect(s.store.deployments).toEqual([{ service: 'order-service', env: 'dev' }]);
  });

  it("past an identity's cap its least recently used idle session makes room; busy ones never do", async () => {
    const s = await start({ maxSessionsPerIdentity: 3 });
    const busy = await connect(patientClient('busy'), 'carol', s.url);
    void startDeploy(busy.client);
    await busy.asked;
    const idleOld = await connect(patientClient('idle-old'), 'carol', s.url);
    const idleNew = await connect(patientClient('idle-new'), 'carol', s.url);
    await idleNew.client.listTools(); // idle-new is now the more recently used
    await connect(patientClient('newcomer'), 'carol', s.url);
    expect(s.handler.sessionCount()).toBe(3);
    // The least recently used idle session went; the one with an open question stayed.
    await expect(idleOld.client.listTools()).rejects.toThrow();
    await expect(idleNew.client.listTools()).resolves.toBeDefined();
    expect(s.log.events.filter((e) => e.type === 'response')).toEqual([]);
  });

  it('a client over its session cap, every session busy, gets 429 at once with the limit named', async () => {
    const s = await start({ maxSessionsPerIdentity: 2 });
    for (const name of ['one', 'two']) {
      const c = await connect(patientClient(name), 'dave', s.url);
      void startDeploy(c.client);
      await c.asked;
    }
    const refused = await rawInitialize(s.url, 'dave', 7);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: LIMIT_REACHED,
        message: expect.stringContaining('2 open sessions, the limit'),
        data: { limit: 'maxSessionsPerIdentity', max: 2 },
      },
    });
    // The SDK client gets an error, not a hang.
    await expect(connect(patientClient('three'), 'dave', s.url)).rejects.toThrow();
    // Another identity is not affected by dave's cap.
    expect((await rawInitialize(s.url, 'erin')).status).toBe(200);
  });

  it('a request over the in-flight cap gets 429; answers to open questions still get through', async () => {
    const s = await start({ maxInFlightPerIdentity: 2 });
    const answer = deferred();
    const c = await connect(
      patientClient('frank', { content: { env: 'dev' }, release: answer.promise }),
      'frank',
      s.url,
    );
    // One call waits on its question; a second one, on a raw session of the same identity whose
    // questions nobody answers, fills the cap.
    const first = startDeploy(c.client);
    await c.asked;
    const init = await rawInitialize(s.url, 'frank', 1, { elicitation: { form: {} } });
    const sid = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    const post = (message: Record<string, unknown>) =>
      fetch(s.url, {
        method: 'POST',
        headers: {
          authorization: 'Bearer frank',
          'mcp-session-id': sid,
          'mcp-protocol-version': '2025-11-25',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', ...message }),
      });
    const call = (id: number) =>
      post({ id, method: 'tools/call', params: { name: 'deploy', arguments: { service: 'order-service' } } });
    expect((await post({ method: 'notifications/initialized' })).status).toBe(202);
    const held = await call(1); // asks, and nobody on this raw session answers
    expect(held.status).toBe(200);
    const over = await call(2);
    expect(over.status).toBe(429);
    expect(await over.json()).toMatchObject({
      id: 2,
      error: { code: LIMIT_REACHED, data: { limit: 'maxInFlightPerIdentity', max: 2 } },
    });
    // The person's answer to the first question is a response, not new work: it is let through.
    answer.resolve();
    expect(await first).toMatchObject({ structuredContent: { status: 'done' } });
    await held.body?.cancel();
  });

  it("another identity cannot use or close someone's session", async () => {
    const s = await start({});
    const alice = await connect(patientClient('alice'), 'alice', s.url);
    void startDeploy(alice.client);
    await alice.asked;
    const sid = (alice.client.transport as { sessionId?: string } | undefined)?.sessionId ?? '';
    const asMallory = await fetch(s.url, {
      method: 'DELETE',
      headers: { authorization: 'Bearer mallory', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(asMallory.status).toBe(404);
    expect(s.handler.sessionCount()).toBe(1);
    expect(s.log.events.filter((e) => e.type === 'response')).toEqual([]);
  });

  it('idle sessions are swept; a session with a question open is not, however long it waits', async () => {
    // The handler's clock stands still while the clients connect (a handshake slower than 50 ms,
    // on a loaded machine, was swept as idle), then moves past the idle time at each look.
    let clock = Date.now();
    const s = await start({ sessionIdleMs: 50, now: () => clock });
    const waiting = await connect(patientClient('waiting'), 'gina', s.url);
    void startDeploy(waiting.client);
    await waiting.asked;
    const idle = await connect(patientClient('idle'), 'gina', s.url);
    await expect
      .poll(
        () => {
          clock += 60_000;
          return s.handler.sessionCount();
        },
        { timeout: 5_000 },
      )
      .toBe(1);
    await expect(idle.client.listTools()).rejects.toThrow();
    expect(s.log.events.filter((e) => e.type === 'response')).toEqual([]);
  });
});

describe('the session table', () => {
  it('keeps nothing for identities it refuses: 10,000 refused at maxSessions leave one bucket, the holder’s', () => {
    const table = new TransportSessionTable(
      { maxSessions: 1, maxSessionsPerIdentity: 10, maxInFlightPerIdentity: 10, idleMs: 60_000, abandonMs: 3_000 },
      Date.now,
      async () => {},
    );
    // alice's one session, busy: nobody can make room.
    table.add({ id: 's1', identity: 'alice', inFlight: 1, streams: 0, seen: Date.now(), dropped: false } as never);
    for (let i = 0; i < 10_000; i++) expect(table.admit(`client-${i}`)).toBe('maxSessions');
    expect((table as unknown as { buckets: Map<string, unknown> }).buckets.size).toBe(1);
    expect(table.mayStart('client-1')).toBe(true);
  });
});
