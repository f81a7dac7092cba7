import { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../../../test/support/redis-server.js';
import { type Balancer, startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, type Loopback, loopback, patientClient, startDeploy } from '../../test/loopback.js';
import { createRedisRelay, type RedisRelay } from './redis-relay.js';

interface Replica {
  relay: RedisRelay;
  redis: Redis;
  serving: Loopback;
}

/** The headers of a raw request on an open 2025 session, as `token`. */
const onSession = (token: string, sessionId: string | undefined): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-session-id': sessionId as string,
  'mcp-protocol-version': '2025-11-25',
});

/** Cuts a replica's subscriber connection on the Redis side, as a network blip would. */
async function dropSubscription(r: Replica, prefix: string): Promise<void> {
  const line = String(await r.redis.client('LIST'))
    .split('\n')
    .find((l) => l.includes(`name=${prefix}relay:${r.relay.replica} `));
  expect(line).toBeDefined();
  await r.redis.client('KILL', 'ID', /\bid=(\d+)/.exec(line ?? '')?.[1] ?? '');
}

describe('2025 sessions relayed across replicas through Redis', () => {
  let server: TestRedis;
  const replicas: Replica[] = [];
  let proxy: Balancer | undefined;
  const clients: Client[] = [];
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => {});
    await proxy?.close();
    for (const r of replicas.splice(0)) {
      await r.serving.close();
      await r.relay.close();
      r.redis.disconnect();
    }
  });

  const replica = async (prefix: string, sessionTtlMs?: number): Promise<Replica> => {
    const redis = new Redis(server.url);
    const relay = createRedisRelay(redis, { prefix, livenessMs: 100, ...(sessionTtlMs ? { sessionTtlMs } : {}) });
    const serving = await loopback({ authenticated: true, sessions: relay });
    await relay.serve(serving.handler);
    const r = { relay, redis, serving };
    replicas.push(r);
    return r;
  };

  /** Two replicas behind a proxy: initialize on the first, every later request on the second. */
  const pair = async (prefix: string) => {
    const [a, b] = [await replica(prefix), await replica(prefix)];
    proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    return { a, b, url: proxy.url };
  };

  /** A pair, and alice's deploy through it waiting on its question (never answered). */
  const asking = async (prefix: string) => {
    const replicasOf = await pair(prefix);
    const { client, asked } = patientClient();
    clients.push(client);
    const transport = httpTransport(replicasOf.url, 'alice');
    await client.connect(transport);
    const call = startDeploy(client);
    await asked;
    return { ...replicasOf, client, transport, call };
  };

  it('the production deploy: every request after initialize lands on the replica not holding the session', async () => {
    const { a, b, url } = await pair('every:');
    const client = new Client({ name: 'relayed', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    const answers = [{ env: 'prod' }, { confirmed: true, ticket: 'REL-1001' }];
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: answers.shift() ?? {} }));
    clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    const result = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect(result.structuredContent).toMatchObject({ status: 'done', deployment: { env: 'prod' } });
    // The session, its questions and the effect live at the holder; the other replica only relayed.
    expect(a.serving.store.deployments).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
    expect(b.serving.store.deployments).toEqual([]);
    expect(a.serving.handler.sessionCount()).toBe(1);
    expect(b.serving.handler.sessionCount()).toBe(0);
    expect(proxy?.log.slice(1).every((entry) => entry.upstream === 1)).toBe(true);
    expect(proxy?.log.some((entry) => entry.method === 'GET')).toBe(true);
    // DELETE, relayed too, closes the session where it lives.
    await transport.terminateSession();
    expect(proxy?.log.at(-1)).toEqual({ upstream: 1, method: 'DELETE' });
    expect(a.serving.handler.sessionCount()).toBe(0);
    expect(b.relay.inFlight()).toBe(0);
  });

  it('round robin over both replicas: a decline and a cancel come back as they were given', async () => {
    const [a, b] = [await replica('rr:'), await replica('rr:')];
    proxy = await startProxy([a.serving.url, b.serving.url]);
    const client = new Client({ name: 'rr', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    const actions = ['decline', 'cancel'] as const;
    client.setRequestHandler('elicitation/create', async () => ({ action: actions[0] }));
    clients.push(client);
    await client.connect(httpTransport(proxy.url, 'alice'));
    expect((await client.callTool({ name: 'deploy', arguments: { service: 's' } })).structuredContent).toMatchObject({
      status: 'declined',
    });
    client.setRequestHandler('elicitation/create', async () => ({ action: actions[1] }));
    expect((await client.callTool({ name: 'deploy', arguments: { service: 's' } })).structuredContent).toMatchObject({
      status: 'cancelled',
    });
    expect([...a.serving.store.deployments, ...b.serving.store.deployments]).toEqual([]);
    expect(new Set(proxy.log.map((entry) => entry.upstream))).toEqual(new Set([0, 1]));
  });

  it("another identity's session is unknown on every replica, and the holder is not even asked", async () => {
    const { a, url, transport, call } = await asking('idn:');
    const sessionId = transport.sessionId as string;
    for (const target of [url, a.serving.url]) {
      const response = await fetch(target, {
        method: 'POST',
        headers: onSession('mallory', sessionId),
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { message: 'Session not found' } });
    }
    expect(a.serving.store.deployments).toEqual([]);
    void call;
  });

  it('the holder dies mid-question: the call ends with an error, nothing is done, a late answer is refused at once', async () => {
    const { a, b, url, transport, call } = await asking('kill:');
    // As a killed process would: its Redis connections drop and its HTTP side stops answering.
    await a.relay.close();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    expect(a.serving.store.deployments).toEqual([]);
    expect(b.relay.inFlight()).toBe(0);
    const late = await fetch(url, {
      method: 'POST',
      headers: onSession('alice', transport.sessionId),
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, result: { action: 'accept', content: { env: 'dev' } } }),
    });
    expect(late.status).toBe(404);
    expect(await late.json()).toMatchObject({ error: { message: 'Session not found' } });
    expect(a.serving.store.deployments).toEqual([]);
  });

  it('a cancel crosses too: the client gives up, the holder withdraws its question, nothing is done', async () => {
    const { a, b, url } = await pair('cancel:');
    let withdrawn!: () => void;
    const wasWithdrawn = new Promise<void>((resolve) => {
      withdrawn = resolve;
    });
    const client = new Client({ name: 'quitter', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    client.setRequestHandler('elicitation/create', (_request, ctx) => {
      asked();
      return new Promise((_resolve, reject) => {
        ctx.mcpReq.signal.addEventListener('abort', () => {
          withdrawn();
          reject(new Error('withdrawn'));
        });
      });
    });
    clients.push(client);
    await client.connect(httpTransport(url, 'alice'));
    const controller = new AbortController();
    const call = startDeploy(client, controller.signal);
    await wasAsked;
    controller.abort('the person closed the tab');
    expect(await call).toBeInstanceOf(Error);
    // notifications/cancelled went b → a; a's withdrawal of elicitation/create came back a → b.
    await wasWithdrawn;
    expect((await a.serving.log.response('env')).action).toBe('cancel');
    expect(a.serving.store.deployments).toEqual([]);
    // The client going away ends the relays it left open (its GET stream, the cancelled call's stream).
    await client.close();
    await expect.poll(() => b.relay.inFlight()).toBe(0);
    await expect.poll(() => a.relay.inFlight()).toBe(0);
  });

  it("the requester's Redis subscription drops mid-question: the call fails at once, the holder withdraws, the session lives on", async () => {
    const { a, b, client, transport, call } = await asking('sub:');
    // Pub/sub is at most once: what the holder publishes while b's subscription is down is lost.
    // Before the fix nothing noticed, and the call waited for an answer stream that had a hole.
    await dropSubscription(b, 'sub:');
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete: the relay lost its Redis subscription/);
    // The holder was told to drop the call: its question is withdrawn, nothing is deployed.
    expect((await a.serving.log.response('env')).action).toBe('cancel');
    expect(a.serving.store.deployments).toEqual([]);
    await expect.poll(() => a.relay.inFlight()).toBe(0);
    // The session was not forgotten: once b is subscribed again, the next call on it goes through.
    expect(await a.redis.exists(`sub:session:${transport.sessionId}`)).toBe(1);
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'staging' } }));
    await expect
      .poll(async () =>
        Number(((await b.redis.pubsub('NUMSUB', `sub:replica:${b.relay.replica}`)) as [string, number])[1]),
      )
      .toBe(1);
    const again = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect(again.structuredContent).toMatchObject({ status: 'done', deployment: { env: 'staging' } });
    expect(a.serving.store.deployments).toHaveLength(1);
  });

  it('a request cut before its head by a dropped subscription gets 503 to retry, not "Session not found"', async () => {
    // The holder opens sessions on its real handler but runs relayed requests on one that never
    // answers: a relay waits for its head when b's subscription drops under it.
    const redis = new Redis(server.url);
    const relay = createRedisRelay(redis, { prefix: 'head:', livenessMs: 100 });
    const serving = await loopback({ authenticated: true, sessions: relay });
    replicas.push({ relay, redis, serving });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    await relay.serve({
      fetch: () => {
        entered();
        return new Promise<Response>(() => {});
      },
    });
    const b = await replica('head:');
    const client = new Client({ name: 'head', version: '1' });
    clients.push(client);
    const transport = httpTransport(serving.url, 'alice');
    await client.connect(transport);
    const url = b.serving.url;
    const pending = fetch(url, {
      method: 'POST',
      headers: onSession('alice', transport.sessionId),
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    await inside;
    await dropSubscription(b, 'head:');
    const response = await pending;
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({
      error: { message: /lost its Redis subscription.*send the request again/ },
    });
    expect(await b.redis.exists(`head:session:${transport.sessionId}`)).toBe(1);
  });

  it('garbage on a replica channel is ignored; an oversize relayed body is refused with 413', async () => {
    const { a, b, url } = await pair('junk:');
    await a.redis.publish(`junk:replica:${a.relay.replica}`, 'not json');
    await a.redis.publish(`junk:replica:${a.relay.replica}`, JSON.stringify({ t: 'abort', r: 'nobody' }));
    const client = new Client({ name: 'after-junk', version: '1' });
    clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('deploy');
    const huge = await b.serving.handler.fetch(
      new Request(b.serving.url, {
        method: 'POST',
        headers: { ...onSession('alice', transport.sessionId), host: new URL(b.serving.url).host },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { pad: 'x'.repeat(5 * 1024 * 1024) },
        }),
      }),
    );
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: { message: /larger than/ } });
  });

  it('the holder keeps its sessions findable past their ttl by heartbeat, and forgets them when they close', async () => {
    const a = await replica('beat:', 300);
    const client = new Client({ name: 'beat', version: '1' });
    clients.push(client);
    const transport = httpTransport(a.serving.url, 'alice');
    await client.connect(transport);
    const key = `beat:session:${transport.sessionId}`;
    expect(await a.redis.pttl(key)).toBeLessThanOrEqual(300);
    // Three ttls later the entry is still there: renewed, not merely long-lived.
    const since = Date.now();
    await expect
      .poll(async () => Date.now() - since > 900 && (await a.redis.exists(key)) === 1, { timeout: 5_000 })
      .toBe(true);
    await transport.terminateSession();
    await expect.poll(() => a.redis.exists(key)).toBe(0);
  });

  it('an entry dropped from the directory while its holder lives is written back by the next heartbeat', async () => {
    const a = await replica('back:', 300);
    const client = new Client({ name: 'back', version: '1' });
    clients.push(client);
    const transport = httpTransport(a.serving.url, 'alice');
    await client.connect(transport);
    const key = `back:session:${transport.sessionId}`;
    const entry = await a.redis.get(key);
    // As a requester does when it finds nobody on the holder's channel (a brief disconnection).
    await a.redis.del(key);
    await expect.poll(() => a.redis.get(key), { timeout: 5_000 }).toBe(entry);
    await transport.terminateSession();
    await expect.poll(() => a.redis.exists(key)).toBe(0);
  });

  it('fails closed when Redis is down: a new session is refused with 503, a relayed request too', async () => {
    const { url } = await pair('down:');
    const client = new Client({ name: 'down', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    for (const r of replicas) r.redis.disconnect();
    const relayed = await fetch(url, {
      method: 'POST',
      headers: onSession('alice', transport.sessionId),
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    });
    expect(relayed.status).toBe(503);
    expect(await relayed.json()).toMatchObject({ error: { message: /Redis/ } });
    const fresh = new Client({ name: 'fresh', version: '1' });
    clients.push(fresh);
    await expect(fresh.connect(httpTransport(url, 'alice'))).rejects.toThrow(/503|unavailable/i);
  });
});
