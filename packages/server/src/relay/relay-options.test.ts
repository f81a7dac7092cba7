/**
 * `createRedisRelay`'s timings hold together or it is not made: a requester gives up on a holder
 * whose heartbeat has lapsed from two thirds of `sessionTtlMs` after that holder's Redis stalled,
 * and by then the holder must have dropped the call — given up on its own Redis commands
 * (`timeoutMs`) and asked about its requester (`livenessMs`). A configuration that breaks
 * `timeoutMs + livenessMs < ⅔ sessionTtlMs`, or a timing that is not a whole number of ms, is
 * refused at once, naming the options and their values: nothing is connected, nothing sent.
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisRelay, type RedisRelayOptions } from './redis-relay.js';

const SECRET = 'relay-options-test-secret-0123456789abcdef';

describe('createRedisRelay timings', () => {
  // Never connected: a refused relay sends nothing, and an accepted one is closed before it serves.
  const clients: Redis[] = [];
  afterEach(() => {
    for (const c of clients.splice(0)) c.disconnect();
  });
  const make = (options: Partial<RedisRelayOptions>) => {
    const redis = new Redis({ lazyConnect: true, enableOfflineQueue: false });
    redis.on('error', () => {});
    clients.push(redis);
    const relay = createRedisRelay(redis, { secret: SECRET, ...options });
    return { relay, redis };
  };
  const accepted = async (options: Partial<RedisRelayOptions>) => {
    const { relay, redis } = make(options);
    await relay.close();
    expect(redis.status).toBe('wait');
  };

  it('the defaults hold together (5 s + 1 s against two thirds of 30 s)', async () => {
    await accepted({});
  });

  it('refuses timeoutMs + livenessMs at two thirds of sessionTtlMs, and takes it 1 ms either side', async () => {
    // sessionTtlMs 9000: two thirds is 6000, which 5000 + 1000 reaches.
    expect(() => make({ sessionTtlMs: 9_000 })).toThrow(RangeError);
    expect(() => make({ sessionTtlMs: 9_000 })).toThrow(
      /timeoutMs \(5000\) \+ livenessMs \(1000\) must stay below two thirds of sessionTtlMs \(9000: 6000 ms\)/,
    );
    await accepted({ sessionTtlMs: 9_001 });
    // timeoutMs at the bound of the default sessionTtlMs (30000: 20000), and under it.
    expect(() => make({ timeoutMs: 19_000 })).toThrow(
      /timeoutMs \(19000\) \+ livenessMs \(1000\) must stay below two thirds of sessionTtlMs \(30000: 20000 ms\)/,
    );
    await accepted({ timeoutMs: 18_999 });
    // livenessMs at it, and under it.
    expect(() => make({ livenessMs: 15_000 })).toThrow(/timeoutMs \(5000\) \+ livenessMs \(15000\)/);
    await accepted({ livenessMs: 14_999 });
    // All three given: 800 + 100 against two thirds of 1350 (900), and of 1351.
    expect(() => make({ sessionTtlMs: 1_350, timeoutMs: 800, livenessMs: 100 })).toThrow(
      /sessionTtlMs \(1350: 900 ms\)/,
    );
    await accepted({ sessionTtlMs: 1_351, timeoutMs: 800, livenessMs: 100 });
  });

  it('refuses a timing that is not a whole number of ms, at least 1, naming it', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => make({ livenessMs: bad }), `livenessMs ${bad}`).toThrow(/^livenessMs must be a whole number/);
      expect(() => make({ sessionTtlMs: bad }), `sessionTtlMs ${bad}`).toThrow(/^sessionTtlMs must be a whole number/);
      expect(() => make({ timeoutMs: bad }), `timeoutMs ${bad}`).toThrow(/^timeoutMs must be a whole number/);
      expect(() => make({ direct: { helloTimeoutMs: bad } }), `helloTimeoutMs ${bad}`).toThrow(
        /^direct\.helloTimeoutMs must be a whole number/,
      );
      expect(() => make({ direct: { maxConnections: bad } }), `maxConnections ${bad}`).toThrow(
        /^direct\.maxConnections must be a whole number/,
      );
    }
    expect(() => make({ direct: { port: 70_000 } })).toThrow(/^direct\.port must be a whole number from 0 to 65535/);
  });
});
