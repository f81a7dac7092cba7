/**
 * A resumable 2025 session whose event store (Redis) cannot be reached: each message is still
 * sent on the live stream, only not kept for a resumption. Was: storeEvent threw, the SDK's
 * transport sent nothing, and the call — its question, then its result after the effect ran —
 * never reached a client whose stream was open all along; it waited out its timeout.
 */
import { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedis, withRedis } from '../../../../test/support/redis-server.js';
import { httpTransport, loopback } from '../../test/loopback.js';
import { createRedisEventStore } from './redis-event-store.js';

const REDIS = withRedis('http/redis-event-store-down.test.ts');
const SECRET = 'a secret both replicas share, at least thirty-two characters';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

describe.skipIf(!REDIS)('a resumable session whose Redis event store is down', () => {
  it('still gets its question and its result on the live stream, the effect run once', async () => {
    const redis = await startRedis();
    closing.push(() => redis.stop());
    // Fails at once while Redis is down (nothing queued), as a client configured to fail fast does.
    const client = new Redis(redis.url, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => 50,
    });
    client.on('error', () => {});
    closing.push(async () => client.disconnect());
    const server = await loopback({ eventStore: createRedisEventStore(client, { secret: SECRET }), retryMs: 20 });
    closing.push(() => server.close());
    await redis.down();
    const mcp = new Client({ name: 't', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    mcp.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
    await mcp.connect(httpTransport(server.url));
    closing.push(() => mcp.close());
    const result = await mcp
      .callTool({ name: 'deploy', arguments: { service: 'order-service' } }, { timeout: 10_000 })
      .catch((error: unknown) => error);
    expect(result).toMatchObject({ structuredContent: { status: 'done' } });
    expect(server.store.deployments).toHaveLength(1);
  });

  it('gives an event it could not keep an id no resumption accepts, even once Redis is back', async () => {
    const redis = await startRedis();
    closing.push(() => redis.stop());
    const client = new Redis(redis.url, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => 50,
    });
    client.on('error', () => {});
    closing.push(async () => client.disconnect());
    await expect.poll(() => client.ping().catch(() => 'down'), { timeout: 10_000 }).toBe('PONG');
    const store = createRedisEventStore(client, { secret: SECRET });
    const note = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { n: 1 } };
    const kept = await store.storeEvent('s/a', note);
    expect(await store.getStreamIdForEventId?.(kept)).toBe('s/a');
    await redis.down();
    const lost = await store.storeEvent('s/a', note);
    expect(lost).toMatch(/^s\/a#/);
    expect(lost).not.toBe(await store.storeEvent('s/a', note));
    await redis.up();
    await expect.poll(() => client.ping().catch(() => 'down'), { timeout: 10_000 }).toBe('PONG');
    expect(await store.getStreamIdForEventId?.(lost)).toBeUndefined();
    await expect(store.replayEventsAfter(lost, { send: async () => {} })).rejects.toThrow('unknown event id');
  });

  // A client that waits for ever (`maxRetriesPerRequest: null`) held each message until Redis came
  // back: the stream sent nothing meanwhile. Each operation now gives up after `timeoutMs`.
  it('with a client that waits for ever, gives up after timeoutMs: the event goes out unkept, a resumption fails', async () => {
    const redis = await startRedis();
    closing.push(() => redis.stop());
    const client = new Redis(redis.url, { maxRetriesPerRequest: null, retryStrategy: () => 50 });
    client.on('error', () => {});
    closing.push(async () => client.disconnect());
    await expect.poll(() => client.ping().catch(() => 'down'), { timeout: 10_000 }).toBe('PONG');
    const store = createRedisEventStore(client, { secret: SECRET, timeoutMs: 1_000 });
    const note = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { n: 1 } };
    const kept = await store.storeEvent('s/a', note);
    await redis.down();
    await expect.poll(() => client.status).not.toBe('ready');
    expect(await store.storeEvent('s/a', note)).toMatch(/^s\/a#unstored-/);
    await expect(store.getStreamIdForEventId?.(kept)).rejects.toThrow('no answer within 1000 ms');
    await expect(store.replayEventsAfter(kept, { send: async () => {} })).rejects.toThrow('no answer within 1000 ms');
  });

  it('refuses a timeoutMs that is not a whole number of ms', () => {
    const unused = new Redis({ lazyConnect: true });
    for (const timeoutMs of [0, -5, 2.5, Number.NaN])
      expect(() => createRedisEventStore(unused, { secret: SECRET, timeoutMs })).toThrow(RangeError);
  });
});
