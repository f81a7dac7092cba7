/**
 * Resumable 2025 streams over real HTTP (`createHttpHandler({ eventStore })`): a client whose
 * call's stream drops in the middle of a question — right after the priming event, before the
 * question went out — reconnects with `Last-Event-ID`, gets the question from the store, answers
 * it, and gets the call's result; on one replica, and across two replicas with the Redis relay
 * (the reconnection lands on the replica that does not hold the session). Without a store the
 * same drop ends the call.
 */
import type { IncomingMessage } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DroppingProxy, startDroppingProxy } from '../../../../test/support/dropping-proxy.js';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { type Loopback, loopback } from '../../test/loopback.js';
import { createRedisRelay } from '../relay/redis-relay.js';
import { createMemoryEventStore } from './event-store.js';
import { createRedisEventStore } from './redis-event-store.js';

const SECRET = 'a secret both replicas share, at least thirty-two characters';
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A client that answers the environment question with `dev`, and reconnects fast. */
async function answeringClient(url: string) {
  const client = new Client({ name: 'resumer', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  let questions = 0;
  client.setRequestHandler('elicitation/create', async () => {
    questions++;
    return { action: 'accept', content: { env: 'dev' } };
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: 'Bearer alice' } },
    reconnectionOptions: {
      initialReconnectionDelay: 20,
      maxReconnectionDelay: 100,
      reconnectionDelayGrowFactor: 1,
      maxRetries: 5,
    },
  });
  await client.connect(transport);
  closing.push(() => client.close());
  return { client, questions: () => questions };
}

async function serve(options: Parameters<typeof loopback>[0]): Promise<Loopback> {
  const server = await loopback({ authenticated: true, retryMs: 20, ...options });
  closing.push(() => server.close());
  return server;
}

async function proxy(upstreams: string[], route?: (req: IncomingMessage, n: number) => number) {
  const p: DroppingProxy = await startDroppingProxy(upstreams, route ? { route } : {});
  closing.push(() => p.stop());
  return p;
}

describe('a 2025 stream dropped in the middle of a question', () => {
  it('is resumed with Last-Event-ID: the question arrives, is answered, and the call ends done', async () => {
    const server = await serve({ eventStore: createMemoryEventStore() });
    const front = await proxy([server.url]);
    const { client, questions } = await answeringClient(front.url);
    const result = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect(result.structuredContent).toMatchObject({ status: 'done', deployment: { env: 'dev' } });
    expect(questions()).toBe(1);
    expect(server.store.deployments).toHaveLength(1);
    expect(front.log.some((e) => e.dropped)).toBe(true);
    expect(front.log.some((e) => e.method === 'GET' && e.lastEventId)).toBe(true);
  });

  it('without an event store the same drop loses the call: the answer finds it ended, nothing is done', async () => {
    const server = await serve({});
    const front = await proxy([server.url]);
    const { client } = await answeringClient(front.url);
    // No priming event: the first event is the question itself, then the stream drops.
    const ended = await client
      .callTool({ name: 'deploy', arguments: { service: 'order-service' } }, { timeout: 1_500 })
      .catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(Error);
    expect(server.store.deployments).toHaveLength(0);
    expect(front.log.some((e) => e.method === 'GET' && e.lastEventId)).toBe(false);
  });

  it('a reconnection with another session’s event id gets nothing of that session', async () => {
    const server = await serve({ eventStore: createMemoryEventStore() });
    const { client } = await answeringClient(server.url);
    await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    // mallory opens her own session and asks for alice's stream from its start.
    const init = await fetch(server.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer mallory',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'm', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.body?.cancel();
    const alices = (client.transport as { sessionId?: string }).sessionId ?? '';
    for (const guess of [`${alices}/_GET_stream#1`, `${alices}/x#1`, `${session}/../${alices}#1`, 'nonsense']) {
      const replay = await fetch(server.url, {
        headers: {
          authorization: 'Bearer mallory',
          accept: 'text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
          'last-event-id': guess,
        },
      });
      expect(replay.status, guess).toBeGreaterThanOrEqual(400);
      expect(await replay.text()).not.toContain('order-service');
    }
  });
});

describe.skipIf(!withRedis('server/src/http/resumable.test.ts'))('resumed across replicas (Redis relay)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  for (const kind of ['memory', 'redis'] as const) {
    it(`the reconnection lands on the other replica and is relayed to the holder (${kind} event store)`, async () => {
      const replica = async (prefix: string) => {
        const client = new Redis(redis.url);
        closing.push(async () => client.disconnect());
        const relay = createRedisRelay(client, { secret: SECRET, prefix, livenessMs: 100 });
        const eventStore =
          kind === 'memory'
            ? createMemoryEventStore()
            : createRedisEventStore(client, { secret: SECRET, prefix: `${prefix}events:` });
        const server = await serve({ sessions: relay, eventStore });
        await relay.serve(server.handler);
        closing.push(() => relay.close());
        return server;
      };
      const prefix = `resume-${kind}:`;
      const [a, b] = [await replica(prefix), await replica(prefix)];
      // POSTs (the session, the call, the answer) go to a; every GET (the reconnection) to b.
      const front = await proxy([a.url, b.url], (req) => (req.method === 'GET' ? 1 : 0));
      const { client, questions } = await answeringClient(front.url);
      const result = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
      expect(result.structuredContent).toMatchObject({ status: 'done' });
      expect(questions()).toBe(1);
      expect(a.store.deployments).toHaveLength(1);
      expect(front.log.some((e) => e.method === 'GET' && e.upstream === 1 && e.lastEventId)).toBe(true);
    });
  }
});

describe('a resumed question stays in flight', () => {
  const H = (sid?: string): Record<string, string> => ({
    authorization: 'Bearer alice',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    ...(sid ? { 'mcp-session-id': sid } : {}),
  });
  const initialize = (url: string) =>
    fetch(url, {
      method: 'POST',
      headers: H(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: { elicitation: { form: {} } },
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
  /** Reads SSE until `needle`; the event ids seen. */
  async function readUntil(body: ReadableStream<Uint8Array>, needle: string): Promise<string[]> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`stream ended before ${needle}: ${text}`);
      text += decoder.decode(value, { stream: true });
      if (text.includes(needle)) break;
    }
    reader.releaseLock();
    return [...text.matchAll(/^id: ?(.*)$/gm)].map((m) => m[1] as string);
  }
  /** alice's session with `deploy` asking; its POST stream dropped, then resumed by a GET with Last-Event-ID. */
  async function resumedQuestion(s: Loopback, resumeSignal?: AbortSignal): Promise<string> {
    const init = await initialize(s.url);
    const sid = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    await fetch(s.url, {
      method: 'POST',
      headers: H(sid),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const drop = new AbortController();
    const posted = await fetch(s.url, {
      method: 'POST',
      headers: H(sid),
      signal: drop.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'deploy', arguments: { service: 'order-service' } },
      }),
    });
    const ids = await readUntil(posted.body as ReadableStream<Uint8Array>, 'elicitation/create');
    drop.abort();
    let resumed: Response | undefined;
    for (let i = 0; i < 50; i++) {
      resumed = await fetch(s.url, {
        headers: { ...H(sid), 'last-event-id': ids[0] as string },
        ...(resumeSignal ? { signal: resumeSignal } : {}),
      });
      // The transport may not have let go of the dropped stream yet.
      if (resumed.status !== 409) break;
      await resumed.text();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(resumed?.status).toBe(200);
    await readUntil(resumed?.body as ReadableStream<Uint8Array>, 'elicitation/create');
    return sid;
  }

  it('its session is not evicted to make room for a new session of the same identity', async () => {
    const s = await loopback({
      authenticated: true,
      eventStore: createMemoryEventStore(),
      retryMs: 20,
      maxSessionsPerIdentity: 1,
    });
    closing.push(() => s.close());
    const sid = await resumedQuestion(s);
    const second = await initialize(s.url);
    await second.text();
    const ping = await fetch(s.url, {
      method: 'POST',
      headers: H(sid),
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
    });
    await ping.text();
    expect({
      second: second.status,
      oldSession: ping.status,
      ended: s.log.events.filter((e) => e.type === 'response').map((e) => (e as { reason?: unknown }).reason),
    }).toEqual({ second: 429, oldSession: 200, ended: [] });
  });

  it('its session is closed abandonedSessionMs after the resumed stream drops too', async () => {
    const s = await loopback({
      authenticated: true,
      eventStore: createMemoryEventStore(),
      retryMs: 20,
      abandonedSessionMs: 100,
    });
    closing.push(() => s.close());
    const gone = new AbortController();
    await resumedQuestion(s, gone.signal);
    gone.abort();
    await expect.poll(() => s.handler.sessionCount(), { timeout: 3_000 }).toBe(0);
  });
});
