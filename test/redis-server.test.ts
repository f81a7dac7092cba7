import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startRedis, withRedis } from './support/redis-server.js';

const REDIS = withRedis('test/redis-server.test.ts');

describe.skipIf(!REDIS)('test Redis', () => {
  it('starts a real redis-server on a free port and stops it', async () => {
    const redis = await startRedis();
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await client.connect();
      await client.set('k', 'v');
      expect(await client.get('k')).toBe('v');
    } finally {
      client.disconnect();
      await redis.stop();
    }
    const after = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    after.on('error', () => {}); // the refusal is asserted below, not logged
    await expect(after.connect()).rejects.toThrow();
    after.disconnect();
  });
});
