/**
 * A shared secret shorter than 256 bits is refused where it is given — the kit's state `secret`
 * and the relay's: an empty one (a variable set but empty) sealed every requestState, or every
 * relayed frame, under a key anyone has. Counted in bytes as sent (a string's UTF-8); never shown.
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createElicitkit } from './kit.js';
import { createRedisRelay } from './relay/redis-relay.js';

const SHORT: [string, string | Uint8Array, number][] = [
  ['empty', '', 0],
  ['a word', 'changeme', 8],
  ['31 characters', 's'.repeat(31), 31],
  ['15 two-byte characters', 'é'.repeat(15), 30],
  ['31 bytes', new Uint8Array(31).fill(7), 31],
];
const LONG_ENOUGH: [string, string | Uint8Array][] = [
  ['32 characters', 's'.repeat(32)],
  ['16 two-byte characters (32 bytes)', 'é'.repeat(16)],
  ['32 bytes', new Uint8Array(32).fill(7)],
];

const clients: Redis[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
});
/** A relay on a Redis never connected: refused, it sends nothing; made, it is closed at once. */
async function relayWith(secret: unknown): Promise<void> {
  const redis = new Redis({ lazyConnect: true, enableOfflineQueue: false });
  redis.on('error', () => {});
  clients.push(redis);
  const relay = createRedisRelay(redis, { secret: secret as string });
  await relay.close();
}

describe.each([
  ['createElicitkit', async (secret: unknown) => void createElicitkit({ secret: secret as string })],
  ['createRedisRelay', relayWith],
])('%s', (_name, make) => {
  it.each(SHORT)('refuses a secret of %s, counting its bytes and not showing it', async (_what, secret, bytes) => {
    const refused = await Promise.resolve()
      .then(() => make(secret))
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    expect(refused).toBeInstanceOf(RangeError);
    expect(refused?.message).toBe(
      `secret must be at least 32 bytes (256 bits) of random data, not ${bytes}: make one with \`openssl rand -base64 32\` and give every process that serves these calls the same`,
    );
    if (typeof secret === 'string' && secret.length > 0) expect(refused?.message).not.toContain(secret);
  });

  it.each(LONG_ENOUGH)('takes a secret of %s', async (_what, secret) => {
    await expect(Promise.resolve().then(() => make(secret))).resolves.toBeUndefined();
  });

  it('refuses a secret that is neither a string nor bytes', async () => {
    for (const secret of [null, 42, { length: 64 }, ['x'.repeat(40)]])
      await expect(
        Promise.resolve().then(() => make(secret)),
        JSON.stringify(secret),
      ).rejects.toThrow(TypeError);
  });
});
