/**
 * How a relay ends when something goes wrong on either side, through Redis and on direct
 * connections: a reply longer than one frame, a holder whose handler fails, a requesting replica
 * shutting down mid-relay, and Redis's subscription dropping under relays that do not use it.
 * None of them may hang a client, or tell it a live session is gone.
 */
import { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { httpTransport, loopback, patientClient, startDeploy } from '../../test/loopback.js';
import { dropSubscription, relayHarness, untilDirect } from '../../test/relay-harness.js';
import { createRedisRelay } from './redis-relay.js';
import { RelayFailedError } from './relayed-response.js';

const REDIS = withRedis('relay/failures.test.ts');
const SECRET = 'relay-failures-test-secret-0123456789abcdef';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Past what one frame carries (the SDK's request bound, 4 MB). */
const LONG = 4_500_000;

/** True when `got` is `want`; else where they part and how `got` goes on from there, to say what came instead. */
function sameOrWhere(got: string, want: string): true | string {
  if (got === want) return true;
  let at = 0;
  while (at < got.length && got[at] === want[at]) at++;
  return `${got.length} characters, not ${want.length}; from ${at}: ${JSON.stringify(got.slice(at, at + 400))}`;
}

/** A reply that sends `sent`, then breaks with `error` (a disk, a database failing under it). */
const breaksAfter = (sent: string, contentType: string, error: string) => async () =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(sent));
        setTimeout(() => controller.error(new Error(error)), 50);
      },
    }),
    { headers: { 'content-type': contentType } },
  );

const onSession = (sessionId: string): Record<string, string> => ({
  authorization: 'Bearer alice',
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-session-id': sessionId,
  'mcp-protocol-version': '2025-11-25',
});

describe.skipIf(!REDIS)('a relay that cannot go as planned', () => {
  const { h, replica, pair } = relayHarness(SECRET);

  /**
   * A holder whose sessions open on its real handler but whose relayed requests run on `fetch`;
   * alice's session on it; a requesting replica. `direct`: both relay on direct connections.
   */
  const holderRunning = async (
    prefix: string,
    fetch: (request: Request) => Promise<Response>,
    direct = false,
    told: { holder: Error[]; requester: Error[]; throws?: boolean } = { holder: [], requester: [] },
  ) => {
    /** Each side's `onerror`: records what it is told, then throws if the test says so (a logger failing). */
    const tell = (into: Error[]) => (error: Error) => {
      into.push(error);
      if (told.throws) throw new Error('the log disk is full');
    };
    const redis = new Redis(h.server.url);
    const relay = createRedisRelay(redis, {
      secret: SECRET,
      prefix,
      livenessMs: 100,
      ...(direct ? { direct: {} } : {}),
      onerror: tell(told.holder),
    });
    const serving = await loopback({ authenticated: true, sessions: relay });
    h.replicas.push({ relay, redis, serving });
    await relay.serve({ fetch });
    const requester = await replica(prefix, {
      ...(direct ? { direct: {} } : {}),
      onerror: tell(told.requester),
    });
    const client = new Client({ name: 'seed', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(serving.url, 'alice');
    await client.connect(transport);
    return { holder: { relay, redis, serving }, requester, sessionId: transport.sessionId as string };
  };
  const post = (url: string, sessionId: string) =>
    fetch(url, {
      method: 'POST',
      headers: onSession(sessionId),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  const within = <T>(ms: number, work: Promise<T>) => Promise.race([work, sleep(ms).then(() => 'hung' as const)]);

  describe.each([
    ['through Redis', false],
    ['on direct connections', true],
  ] as const)('%s', (_way, direct) => {
    const prefix = (name: string) => `${name}${direct ? 'd' : 'r'}:`;

    it('an SSE chunk longer than one frame arrives whole', async () => {
      const text = `event: message\ndata: "${'x'.repeat(LONG)}"\n\n`;
      const told = { holder: [] as Error[], requester: [] as Error[] };
      const { holder, requester, sessionId } = await holderRunning(
        prefix('sse'),
        async () =>
          new Response(
            new ReadableStream<Uint8Array>({
              start(controller) {
                controller.enqueue(new TextEncoder().encode(text));
                controller.close();
              },
            }),
            { headers: { 'content-type': 'text/event-stream' } },
          ),
        direct,
        told,
      );
      const outcome = await within(
        10_000,
        post(requester.serving.url, sessionId).then(async (r) => ({ status: r.status, body: await r.text() })),
      );
      // Why a relay failed, if one did (each side's operator is told), beside what arrived.
      const failed = [...told.holder, ...told.requester].map((e) => e.message);
      expect(
        outcome === 'hung' ? 'hung' : { status: outcome.status, same: sameOrWhere(outcome.body, text), failed },
      ).toEqual({ status: 200, same: true, failed: [] });
      expect([holder.relay.inFlight(), requester.relay.inFlight()]).toEqual([0, 0]);
    });

    it('a JSON reply longer than one frame arrives whole', async () => {
      const json = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { x: 'x'.repeat(LONG) } });
      const told = { holder: [] as Error[], requester: [] as Error[] };
      const { requester, sessionId } = await holderRunning(
        prefix('json'),
        async () => new Response(json, { headers: { 'content-type': 'application/json' } }),
        direct,
        told,
      );
      const response = await post(requester.serving.url, sessionId);
      const body = await response.text().catch((error: unknown) => `(broken off: ${String(error)})`);
      const failed = [...told.holder, ...told.requester].map((e) => e.message);
      expect({ status: response.status, same: sameOrWhere(body, json), failed }).toEqual({
        status: 200,
        same: true,
        failed: [],
      });
    });

    it('a JSON reply the holder cannot finish: a 500, none of it sent as if it were all', async () => {
      const opening = '{"jsonrpc":"2.0","id":1,"result":{"x":"';
      const told = { holder: [] as Error[], requester: [] as Error[] };
      const { holder, requester, sessionId } = await holderRunning(
        prefix('broken'),
        breaksAfter(`${opening}${'x'.repeat(LONG)}`, 'application/json', 'the disk under the reply failed'),
        direct,
        told,
      );
      const response = await post(requester.serving.url, sessionId);
      const text = await response.text();
      // The 500's own error, with nothing of the reply the holder had begun.
      expect({ status: response.status, carriesPart: text.includes(opening) }).toEqual({
        status: 500,
        carriesPart: false,
      });
      expect(text).toContain('the request failed on the server instance holding its session');
      expect(text).not.toContain('disk');
      // A 500 is the holder's answer, not a relay that failed: only the holder's operator is told why.
      expect({ holder: told.holder.map((e) => e.message), requester: told.requester }).toEqual({
        holder: ['the disk under the reply failed'],
        requester: [],
      });
      await expect.poll(() => [holder.relay.inFlight(), requester.relay.inFlight()]).toEqual([0, 0]);
    });

    it.each([
      ['', false],
      [' (an onerror that throws changes nothing)', true],
    ])(
      "an SSE reply that breaks part way on the holder: its client gets an error event, never the holder's error, which the holder's onerror is told%s",
      async (_, throws) => {
        const told = { holder: [] as Error[], requester: [] as Error[], throws };
        const { holder, requester, sessionId } = await holderRunning(
          prefix('breaks'),
          breaksAfter(
            'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"begun"}}\n\n',
            'text/event-stream',
            'SQLITE_CORRUPT: /var/lib/opsdesk/opsdesk.db',
          ),
          direct,
          told,
        );
        const response = await post(requester.serving.url, sessionId);
        const text = await response.text();
        expect(response.status).toBe(200);
        expect(text).toContain('"data":"begun"');
        expect(text).toContain(
          'The request did not complete: the response failed on the server instance holding its session. Whether it took effect is not known: a tool effect the server had already begun runs to its end. Check before calling it again.',
        );
        expect(text).not.toContain('SQLITE');
        expect(told.holder.map((e) => e.message)).toEqual(['SQLITE_CORRUPT: /var/lib/opsdesk/opsdesk.db']);
        expect(told.requester).toEqual([
          expect.objectContaining({
            code: 'RELAY_FAILED',
            holder: holder.relay.replica,
            method: 'POST',
            started: true,
            reason: 'the response failed on the server instance holding its session',
          }),
        ]);
        expect(told.requester[0]).toBeInstanceOf(RelayFailedError);
        await expect.poll(() => [holder.relay.inFlight(), requester.relay.inFlight()]).toEqual([0, 0]);
      },
    );

    it('a handler that throws on the holder: a 500, and the session is not forgotten', async () => {
      const told = { holder: [] as Error[], requester: [] as Error[] };
      const { requester, sessionId } = await holderRunning(
        prefix('boom'),
        async () => {
          throw new Error('boom: a detail the client is not shown');
        },
        direct,
        told,
      );
      const response = await post(requester.serving.url, sessionId);
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(text).toContain('the request failed on the server instance holding its session');
      expect(text).not.toContain('boom');
      expect(told.holder.map((e) => e.message)).toEqual(['boom: a detail the client is not shown']);
      expect(await requester.redis.exists(`${prefix('boom')}session:${sessionId}`)).toBe(1);
    });

    it('the requesting replica shuts down mid-relay: a 503, the session kept, the holder drops the request', async () => {
      let aborted = false;
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const told = { holder: [] as Error[], requester: [] as Error[] };
      const { holder, requester, sessionId } = await holderRunning(
        prefix('bye'),
        (request) => {
          entered();
          return new Promise<Response>((_resolve, reject) =>
            request.signal.addEventListener('abort', () => {
              aborted = true;
              reject(new Error('aborted'));
            }),
          );
        },
        direct,
        told,
      );
      const pending = post(requester.serving.url, sessionId);
      await inside;
      await requester.relay.close();
      const response = await pending;
      expect(response.status).toBe(503);
      expect(await requester.redis.exists(`${prefix('bye')}session:${sessionId}`)).toBe(1);
      await expect.poll(() => ({ aborted, inFlight: holder.relay.inFlight() })).toEqual({ aborted: true, inFlight: 0 });
      // The requester's operator is told; the holder's handler rejecting once its request was dropped is no error.
      expect(told.requester).toEqual([
        expect.objectContaining({
          holder: holder.relay.replica,
          started: false,
          reason: 'this replica is shutting down',
          message: `a POST relayed to replica ${holder.relay.replica} failed: this replica is shutting down`,
        }),
      ]);
      expect(told.holder).toEqual([]);
    });
  });

  it('a drop of the Redis subscription does not cut a question relayed on a direct connection', async () => {
    const { a, b, url } = await pair('blip:', { direct: {} });
    let release!: () => void;
    const { client, asked } = patientClient('blip', {
      content: { env: 'staging' },
      release: new Promise<void>((resolve) => (release = resolve)),
    });
    h.clients.push(client);
    await client.connect(httpTransport(url, 'alice'));
    await untilDirect(client, a);
    const call = startDeploy(client);
    await asked;
    await dropSubscription(b, 'blip:');
    await sleep(300);
    release();
    const result = (await call) as { structuredContent?: { status?: string } } | Error;
    expect(result instanceof Error ? result.message : result.structuredContent?.status).toBe('done');
  });
});
