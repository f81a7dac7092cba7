import { hkdfSync, randomUUID } from 'node:crypto';
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Redis } from 'ioredis';
import { bounded, storeTimeout } from '../claims/bounded.js';
import { decrypt, encrypt, sha1Hex } from '../digest.js';
import { checkSecret } from '../secret.js';
import { storeBound } from './event-store.js';

/** Where and for how long a Redis event store keeps events, and the key they are sealed with. */
export interface RedisEventStoreOptions {
  /**
   * The replicas' shared secret (≥ 32 characters; the state secret does): events are encrypted
   * and authenticated (AES-256-GCM, a key derived from it) and bound to their stream and their
   * id, so whoever else reads or writes the Redis neither reads a question or a result nor puts
   * one in a stream — not even one of that stream's own events again, at another place.
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
  /**
   * The longest one operation waits for Redis, ms. Default 5 s. Past it an event is sent on the
   * live stream without being kept (as with Redis unreachable), and a resumption fails, even on a
   * client that would wait for ever (`maxRetriesPerRequest: null`). A whole number, at least 1.
   */
  timeoutMs?: number;
}

const EVENT_ID = /^(.+)#(\d{1,16}-\d{1,10})$/;
/** What the id of an event Redis could not keep carries after the stream (never an id `EVENT_ID` reads). */
const UNSTORED = 'unstored-';

/**
 * Adds one event under the id given (its sealing is bound to it): `1`. An id not past the stream's
 * last (another writer's, or a clock gone back) adds nothing and answers that last id, for the
 * next try to follow. The same event sent again after it was added (its answer lost) is not added
 * twice: `1`.
 */
const STORE = `
local key, id, sealed, max, ttl = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local added = redis.pcall('XADD', key, 'MAXLEN', max, id, 'e', sealed)
if type(added) == 'table' and added.err then
  local last = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)[1]
  if last and last[1] == id and last[2][2] == sealed then
    redis.call('PEXPIRE', key, ttl)
    return 1
  end
  local info = redis.call('XINFO', 'STREAM', key)
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then return info[i + 1] end
  end
  return redis.error_reply(added.err)
end
redis.call('PEXPIRE', key, ttl)
return 1
`;
const STORE_SHA = sha1Hex(STORE);

/**
 * The events of 2025 response streams in Redis (one Redis stream per response stream, trimmed
 * and expiring), for `createHttpHandler({ eventStore })` on replicas that would rather not keep
 * them in memory. Nothing bounds the streams together, so no session's traffic drops another's;
 * event ids are made by the replica writing the stream, from its clock, and only grow (Redis
 * refuses one not past a stream's last), so a stream written again after it expired never reuses
 * one. Each event is sealed for its stream and its id: a copy under another stream or id is not
 * replayed. A reconnection reaching another replica is relayed to the one holding the
 * session, which replays from here.
 *
 * @example
 * const eventStore = createRedisEventStore(redis, { secret: process.env.ELICITKIT_STATE_SECRET });
 * const http = createHttpHandler(factory, { eventStore, sessions: relay });
 */
export function createRedisEventStore(redis: Redis, options: RedisEventStoreOptions): EventStore {
  // Counted in bytes, as every secret the kit takes (`checkSecret`): a missing one is said so, not a crash.
  const secret = checkSecret('the event store secret', options.secret);
  const key = new Uint8Array(hkdfSync('sha256', secret, new Uint8Array(0), 'elicitkit stream events v1', 32));
  const prefix = options.prefix ?? 'elicitkit:events:';
  const max = storeBound('maxEventsPerStream', options.maxEventsPerStream, 1000);
  const ttlMs = storeBound('ttlMs', options.ttlMs, 10 * 60_000);
  const timeoutMs = storeTimeout(options.timeoutMs);
  // What an event is sealed for: its stream and its id there. A copy of one under another key or
  // id (by anyone who can write the Redis, or a bug) does not open.
  const bound = (stream: string, xid: string) => Buffer.from(`event\0${stream}\0${xid}`);
  const parse = (eventId: string) => {
    const match = EVENT_ID.exec(eventId);
    return match ? { stream: match[1] as string, xid: match[2] as string } : undefined;
  };
  // Event ids are made here (each is sealed with its own), from this process's clock, never going
  // back; a stream whose last id is past the one made (another writer's) is followed.
  let lastMs = 0;
  let lastSeq = 0;
  const nextId = (after: string | undefined) => {
    let ms = Math.max(Date.now(), lastMs);
    let seq = ms === lastMs ? lastSeq + 1 : 0;
    if (after !== undefined) {
      const [afterMs, afterSeq] = after.split('-').map(Number) as [number, number];
      if (afterMs > ms) [ms, seq] = [afterMs, afterSeq + 1];
      else if (afterMs === ms) seq = Math.max(seq, afterSeq + 1);
    }
    lastMs = ms;
    lastSeq = seq;
    return `${ms}-${seq}`;
  };
  const add = async (key: string, xid: string, sealed: string) => {
    const args = [xid, sealed, String(max), String(ttlMs)];
    try {
      return await redis.evalsha(STORE_SHA, 1, key, ...args);
    } catch (error) {
      if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
      return await redis.eval(STORE, 1, key, ...args);
    }
  };
  return {
    async storeEvent(streamId, message) {
      const plain = JSON.stringify(message);
      try {
        let after: string | undefined;
        // Twice at most: another writer's last id is followed once; a third would be a race lost again.
        for (let attempt = 0; attempt < 3; attempt++) {
          const xid = nextId(after);
          const reply = await bounded(
            add(prefix + streamId, xid, encrypt(key, plain, bound(streamId, xid))),
            timeoutMs,
          );
          if (reply === 1) return `${streamId}#${xid}`;
          after = String(reply);
        }
        throw new Error('the event was not stored');
      } catch {
        // Redis cannot be reached: the message still goes out on the live stream (the transport
        // sends nothing when this throws, so a call's question and result were lost with Redis),
        // only not kept. Its id names no stored event, so a resumption from it is refused.
        return `${streamId}#${UNSTORED}${randomUUID()}`;
      }
    },
    async getStreamIdForEventId(eventId) {
      const parsed = parse(eventId);
      return parsed && (await bounded(redis.exists(prefix + parsed.stream), timeoutMs)) === 1
        ? parsed.stream
        : undefined;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const parsed = parse(lastEventId);
      if (!parsed) throw new Error('unknown event id');
      const entries = await bounded(
        redis.xrange(prefix + parsed.stream, `(${parsed.xid}`, '+', 'COUNT', max),
        timeoutMs,
      );
      for (const [xid, fields] of entries) {
        const plain = fields[0] === 'e' && fields[1] ? decrypt(key, fields[1], bound(parsed.stream, xid)) : undefined;
        // Not ours, altered, another stream's, or another place's in this one: never sent to the client.
        if (plain === undefined) continue;
        await send(`${parsed.stream}#${xid}`, JSON.parse(plain) as JSONRPCMessage);
      }
      return parsed.stream;
    },
  };
}
