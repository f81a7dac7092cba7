/**
 * A relay whose `serve` fails stops what it started. Was: with its direct port taken, `serve`
 * rejected (EADDRINUSE) with the relay's own subscriber connection still open and its heartbeat
 * written: a caller that closed its own Redis client, as a failed start does, was left with a
 * process that never exited — unless it knew to call `relay.close()` after a failed `serve`.
 * Counted by Redis (`CLIENT LIST`, the relay's heartbeat keys).
 */
import { type AddressInfo, createServer } from 'node:net';
import { McpServer } from '@modelcontextprotocol/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { createHttpHandler } from '../http/handler.js';
import { createRedisRelay } from './redis-relay.js';

const SECRET = 's'.repeat(32);

describe.skipIf(!withRedis('relay/serve-fails.test.ts'))('a relay whose serve fails', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  }, 60_000);
  afterAll(() => redis?.stop());

  it('its direct port taken: serve rejects, and nothing of the relay is left on Redis', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const client = new Redis(redis.url);
    const watcher = new Redis(redis.url);
    try {
      const relay = createRedisRelay(client, { secret: SECRET, direct: { port } });
      const handler = createHttpHandler(() => new McpServer({ name: 'relay-serve-fails', version: '1.0.0' }), {
        sessions: relay,
      });
      await expect(relay.serve(handler)).rejects.toThrow('EADDRINUSE');
      const relayConnections = async () =>
        String(await watcher.client('LIST'))
          .split('\n')
          .filter((line) => line.includes('name=elicitkit:relay:'));
      // The subscriber's connection ends a moment after it is told to.
      let left = await relayConnections();
      for (let i = 0; i < 50 && left.length > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        left = await relayConnections();
      }
      expect(left).toEqual([]);
      expect(await watcher.keys('elicitkit:relay:alive:*')).toEqual([]);
      await handler.close();
    } finally {
      client.disconnect();
      watcher.disconnect();
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
