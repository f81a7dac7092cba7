/**
 * Closing a replica removes its entries and its liveness from Redis, so others learn at once that
 * it is gone. When Redis cannot be reached then, a client that queues commands until it can
 * (ioredis's offline queue with `maxRetriesPerRequest: null`, as job queues sharing the client
 * require) would hold the close, and the shutdown with it, for ever: it waits a moment, and the
 * entries lapse on their own once their ttl is past.
 */
import { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { httpTransport } from '../../test/loopback.js';
import { relayHarness } from '../../test/relay-harness.js';

const REDIS = withRedis('relay/close-unreachable.test.ts');
const SECRET = 'relay-close-unreachable-secret-0123456789ab';

describe.skipIf(!REDIS)('closing a replica whose Redis cannot be reached', () => {
  const { h, gated } = relayHarness(SECRET);

  it('does not wait on Redis for ever: it closes, and its entries lapse on their own', async () => {
    const prefix = 'closecut:';
    const a = await gated(prefix, { sessionTtlMs: 3_300, timeoutMs: 2_000 }, { maxRetriesPerRequest: null });
    const client = new Client({ name: 'closing', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(a.serving.url, 'alice');
    await client.connect(transport);
    const observer = new Redis(h.server.url);
    h.cleanups.push(async () => observer.disconnect());
    const entry = `${prefix}session:${transport.sessionId}`;
    const alive = `${prefix}alive:${a.relay.replica}`;
    expect(await observer.exists(entry, alive)).toBe(2);
    // Redis out of reach: the client reconnects again and again, its commands queued meanwhile.
    a.gate.cut();
    await expect.poll(() => a.redis.status).not.toBe('ready');
    await a.relay.close();
    expect(a.relay.inFlight()).toBe(0);
    // Nothing reached Redis: the entries go once their ttl is past.
    await expect.poll(() => observer.exists(entry, alive), { timeout: 10_000 }).toBe(0);
  });

  it('leaves no removal queued for when Redis is back (it could take a later replica of the same id for gone)', async () => {
    const prefix = 'closeback:';
    const a = await gated(prefix, { sessionTtlMs: 60_000, replica: 'fixed-id' }, { maxRetriesPerRequest: null });
    const observer = new Redis(h.server.url);
    h.cleanups.push(async () => observer.disconnect());
    const alive = `${prefix}alive:fixed-id`;
    expect(await observer.exists(alive)).toBe(1);
    a.gate.cut();
    await expect.poll(() => a.redis.status).not.toBe('ready');
    await a.relay.close();
    // Back: whatever the client had queued runs before this PING is answered.
    a.gate.open();
    expect(await a.redis.ping()).toBe('PONG');
    expect(await observer.exists(alive)).toBe(1);
  });
});
