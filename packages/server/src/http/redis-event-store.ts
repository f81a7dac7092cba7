import { hkdfSync, randomUUID } from 'node:crypto';
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Redis } from 'ioredis';
import { decrypt, encrypt } from '../digest.js';
import { storeBound } from './event-store.js';

/** Where and for how long a Redis event store keeps events, and the key they are sealed with. */
export interface RedisEventStoreOptions {
  /**
   * The replicas' shared secret (≥ 32 characters; the state secret does): events are encrypted
   * and authenticated (AES-256-GCM, a key derived from it) and bound to their stream, so whoever
   * else reads or writes the Redis neither reads a question or a result nor puts one in a stream.
   */
  secret: string;
  /** Key prefix. Default `elicitkit:events:`. Bounds and lifetimes below: whole numbers, at least 1 (else a `RangeError`). */
  prefix?: string;
  /** Events kept per stream. Default 1000. */
  maxEventsPerStream?: number;
  /**
   * How long a stream is kept after its last event — one still waiting for its response too (unlike
   * the memory store's): a stream that drops after its question has been open this long cannot be
   * resumed. Default 10 minutes.
   */
  ttlMs?: number;
}

const EVENT_ID = /^(.+)#(\d{1,16}-\d{1,10})$/;
/** What the id of an event Redis could not keep carries after the stream (never an id `EVENT_ID` reads). */
const UNSTORED = 'unstored-';

/**
 * The events of 2025 response streams in Redis (one Redis stream per response stream, trimmed
 * and expiring), for `createHttpHandler({ eventStore })` on replicas that would rather not keep
 * them in memory. Nothing bounds the streams together, so no session's traffic drops another's;
 * event ids are Redis's, which only grow (with Redis's clock), so a stream written again after it
 * expired never reuses one. A reconnection reaching another replica is relayed to the one holding the
 * session, which replays from here.
 *
 * @example
 * const eventStore = createRedisEventStore(redis, { secret: process.env.ELICITKIT_STATE_SECRET });
 * const http = createHttpHandler(factory, { eventStore, sessions: relay });
 */
export function createRedisEventStore(redis: Redis, options: RedisEventStoreOptions): EventStore {
  if (options.secret.length < 32) throw new TypeError('the event store secret needs at least 32 characters');
  const key = new Uint8Array(hkdfSync('sha256', options.secret, new Uint8Array(0), 'elicitkit stream events v1', 32));
  const prefix = options.prefix ?? 'elicitkit:events:';
  const max = storeBound('maxEventsPerStream', options.maxEventsPerStream, 1000);
  const ttlMs = storeBound('ttlMs', options.ttlMs, 10 * 60_000);
  const bound = (stream: string) => Buffer.from(`stream ${stream}`);
  const parse = (eventId: string) => {
    const match = EVENT_ID.exec(eventId);
    return match ? { stream: match[1] as string, xid: match[2] as string } : undefined;
  };
  return {
    async storeEvent(streamId, message) {
      const sealed = encrypt(key, JSON.stringify(message), bound(streamId));
      try {
        const results = await redis
          .multi()
          .xadd(prefix + streamId, 'MAXLEN', String(max), '*', 'e', sealed)
          .pexpire(prefix + streamId, ttlMs)
          .exec();
        const [error, xid] = results?.[0] ?? [new Error('the event was not stored'), null];
        if (error) throw error;
        return `${streamId}#${String(xid)}`;
      } catch {
        // Redis cannot be reached: the message still goes out on the live stream (the transport
        // sends nothing when this throws, so a call's question and result were lost with Redis),
        // only not kept. Its id names no stored event, so a resumption from it is refused.
        return `${streamId}#${UNSTORED}${randomUUID()}`;
      }
    },
    async getStreamIdForEventId(eventId) {
      const parsed = parse(eventId);
      return parsed && (await redis.exists(prefix + parsed.stream)) === 1 ? parsed.stream : undefined;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const parsed = parse(lastEventId);
      if (!parsed) throw new Error('unknown event id');
      const entries = await redis.xrange(prefix + parsed.stream, `(${parsed.xid}`, '+', 'COUNT', max);
      for (const [xid, fields] of entries) {
        const plain = fields[0] === 'e' && fields[1] ? decrypt(key, fields[1], bound(parsed.stream)) : undefined;
        // Not ours, altered, or another stream's: never sent to the client.
        if (plain === undefined) continue;
        await send(`${parsed.stream}#${xid}`, JSON.parse(plain) as JSONRPCMessage);
      }
      return parsed.stream;
    },
  };
}
