import { hkdfSync, randomBytes } from 'node:crypto';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { Redis } from 'ioredis';
import { bounded, storeTimeout } from '../claims/bounded.js';
import { hmacSha256, type Mac, sameMac } from '../digest.js';

/** The channel the replicas share and the secret their messages are signed with. */
export interface RedisEventBusOptions {
  /**
   * The replicas' shared secret (≥ 32 characters; the state secret does): every message is signed
   * (HMAC-SHA256, a key derived from it, bound to the channel), so whoever else can write to the
   * Redis makes no client re-list nor hears of a resource it names.
   */
  secret: string;
  /** The pub/sub channel. Default `elicitkit:bus`. Replicas of one deployment share it; another deployment uses its own. */
  channel?: string;
  /** The longest `close()` waits for Redis to confirm, ms. Default 5 s. A whole number, at least 1. */
  timeoutMs?: number;
  /** Told what a listener threw, and each event that could not be sent to the other replicas (it was still delivered here). */
  onerror?: (error: Error) => void;
}

/** Why messages from the channel were dropped, counted. */
export interface RedisEventBusDrops {
  /** Longer than `MAX_EVENT_MESSAGE_BYTES`: dropped unread. */
  oversized: number;
  /** No signature, or not this deployment's (another key, or altered on the way). */
  signature: number;
  /** Signed, but not the envelope this bus sends (not JSON, missing or mistyped fields). */
  malformed: number;
  /** Signed, of a kind this replica does not know (a later version's). */
  kind: number;
  /** Signed, of a known kind, but its URI or params are not what the SDK expects. */
  schema: number;
  /** Past its expiry, or expiring further out than any sender sets. */
  expired: number;
  /** Its nonce was taken already: a copy sent again. */
  replayed: number;
}

/** A `ServerEventBus` over Redis pub/sub, for `createHttpHandler({ bus })`. */
export interface RedisEventBus extends ServerEventBus {
  /**
   * Resolves once subscribed for the first time, however long Redis takes to be up (until then,
   * what the other replicas say is not heard here). Never settles for a bus closed before.
   */
  readonly ready: Promise<void>;
  /** Whether its subscription is up now: while it is not, what the other replicas say is not heard. */
  hearing(): boolean;
  /** Messages from the channel dropped, by reason. */
  dropped(): RedisEventBusDrops;
  /** Events published here but not sent to the other replicas (Redis not connected, too many still in flight, too big, not JSON). */
  unsent(): number;
  /** Unsubscribes and quits its own connection. Local listeners still hear what is published here after. */
  close(): Promise<void>;
}

/** The longest message read from the channel, in bytes (UTF-8): a larger one is dropped unread (`oversized`). */
export const MAX_EVENT_MESSAGE_BYTES = 64 * 1024;
/** How long a message is valid after it was sent: longer than any clock skew between replicas. */
export const EVENT_TTL_MS = 30_000;
/** At most this many publishes waiting for Redis; more are not sent (`unsent`) rather than queued. */
const MAX_IN_FLIGHT = 1000;
/** At most this many nonces remembered; past it the oldest goes, and nothing expiring no later than it is accepted. */
export const MAX_SEEN = 100_000;
const MAX_ID = 64;
const MAX_URI = 8 * 1024;
const KINDS = new Set<string>([
  'tools_list_changed',
  'prompts_list_changed',
  'resources_list_changed',
  'resource_updated',
]);
const MAC_LENGTH = 43;

/** The key a deployment's bus messages are signed with, on `channel`. Exported for the tests' hostile messages. */
export function eventBusKey(secret: string): Mac {
  return hmacSha256(new Uint8Array(hkdfSync('sha256', secret, new Uint8Array(0), 'elicitkit server events v1', 32)));
}

/** The envelope a bus sends: who (`f`), a nonce (`n`), its expiry (`x`), and the event (`k`, `u`, `p`). */
export interface EventEnvelope {
  f: string;
  n: string;
  x: number;
  k: string;
  u?: string;
  p?: unknown;
}

/** A message: the signature over the channel and the JSON, a dot, the JSON. Any value: the tests seal hostile ones. */
export function sealEvent(mac: Mac, channel: string, envelope: unknown): string {
  const json = JSON.stringify(envelope);
  return `${mac(`${channel}\n${json}`)}.${json}`;
}

/**
 * A `ServerEventBus` the replicas of one deployment share through Redis pub/sub, for
 * `createHttpHandler(factory, { bus })`: a change told on any replica (`handler.notify`) reaches the
 * 2026-07-28 `subscriptions/listen` streams of every one. `publish` delivers to this process's
 * listeners at once (as the SDK's `InMemoryServerEventBus`) and sends the event, signed, on the
 * channel; each replica delivers what it hears there to its own listeners, its own messages
 * skipped (each bus has a random id), so no event is delivered twice.
 *
 * Each message is signed with a key derived from `secret` and bound to the channel, carries a
 * nonce and expires after `EVENT_TTL_MS`: one that is larger than `MAX_EVENT_MESSAGE_BYTES`, not
 * signed with this key, not an envelope, of an unknown kind, with a URI or params not as the SDK
 * expects (params a JSON object), expired, or a copy of one heard already is dropped and counted
 * (`dropped()`), never delivered and never thrown.
 *
 * Pub/sub delivers at most once: what is published while Redis is down, or while this replica's
 * subscription is, is lost. So publishing never waits or queues for Redis (an event not sent is
 * counted, `unsent()`), and once its subscription is back after being lost this bus tells its
 * listeners that the tools, prompts and resources lists changed: its clients list them again
 * rather than miss a change (a `resource_updated` missed meanwhile is not told again).
 *
 * @example
 * const bus = createRedisEventBus(redis, { secret: process.env.ELICITKIT_STATE_SECRET });
 * const http = createHttpHandler(factory, { bus, sessions: relay });
 */
export function createRedisEventBus(redis: Redis, options: RedisEventBusOptions): RedisEventBus {
  if (typeof options.secret !== 'string' || options.secret.length < 32)
    throw new TypeError('the event bus secret needs at least 32 characters');
  const channel = options.channel ?? 'elicitkit:bus';
  if (typeof channel !== 'string' || channel.length === 0 || channel.length > 256)
    throw new TypeError('the event bus channel must be 1 to 256 characters');
  const timeoutMs = storeTimeout(options.timeoutMs);
  const mac = eventBusKey(options.secret);
  const id = randomBytes(16).toString('base64url');
  const listeners = new Set<(event: ServerEvent) => void>();
  const drops: RedisEventBusDrops = {
    oversized: 0,
    signature: 0,
    malformed: 0,
    kind: 0,
    schema: 0,
    expired: 0,
    replayed: 0,
  };
  let unsent = 0;
  let inFlight = 0;
  let closed = false;
  let hearing = false;
  let lost = false;
  // Nonces heard (until their expiry), oldest first; `floor`: the latest expiry forgotten early.
  const seen = new Map<string, number>();
  let floor = 0;

  const report = (error: unknown) => {
    try {
      options.onerror?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // An onerror that throws takes nothing down with it.
    }
  };
  const deliver = (event: ServerEvent) => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (error) {
        report(error);
      }
    }
  };
  const notSent = (why: string) => {
    unsent++;
    report(new Error(`event not sent to the other replicas: ${why}`));
  };

  const subscriber = redis.duplicate({
    lazyConnect: true,
    enableOfflineQueue: true,
    autoResubscribe: true,
    connectionName: `${channel.replace(/[^\w:.-]/g, '_')}:${id}`,
  });
  subscriber.on('error', () => {});
  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel || closed) return;
    // Whatever a message holds, nothing is thrown into ioredis's handler.
    try {
      const event = open(message);
      if (event) deliver(event);
    } catch {
      drops.malformed++;
    }
  });
  subscriber.on('close', () => {
    if (hearing) lost = true;
    hearing = false;
  });
  // Subscribed on each connection's start: the first (however long Redis takes to be up), and
  // each one after a connection lost (ioredis subscribes again on its own too; this one, after it
  // on the same connection, answers once the channel is ours again). Then what was missed while
  // it could not hear is made up for.
  let subscribed: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    subscribed = resolve;
  });
  subscriber.on('ready', () => {
    if (closed) return;
    subscriber.subscribe(channel).then(
      () => {
        if (closed || subscriber.status !== 'ready') return;
        hearing = true;
        subscribed();
        if (!lost) return;
        lost = false;
        deliver({ kind: 'tools_list_changed' });
        deliver({ kind: 'prompts_list_changed' });
        deliver({ kind: 'resources_list_changed' });
      },
      () => {},
    );
  });
  // Redis down at first: this attempt fails, and ioredis goes on trying (its `retryStrategy`).
  subscriber.connect().catch(() => {});

  /** The event a message carries, or undefined when it is dropped (counted) or is this bus's own. */
  function open(message: string): ServerEvent | undefined {
    if (message.length > MAX_EVENT_MESSAGE_BYTES || Buffer.byteLength(message, 'utf8') > MAX_EVENT_MESSAGE_BYTES) {
      drops.oversized++;
      return undefined;
    }
    if (message.length < MAC_LENGTH + 2 || message[MAC_LENGTH] !== '.') {
      drops.signature++;
      return undefined;
    }
    const json = message.slice(MAC_LENGTH + 1);
    if (!sameMac(Buffer.from(message.slice(0, MAC_LENGTH), 'base64url'), mac.bytes(`${channel}\n${json}`))) {
      drops.signature++;
      return undefined;
    }
    let envelope: unknown;
    try {
      envelope = JSON.parse(json);
    } catch {
      drops.malformed++;
      return undefined;
    }
    if (!isEnvelope(envelope)) {
      drops.malformed++;
      return undefined;
    }
    const { f, n, x, k, u, p } = envelope;
    if (f === id) return undefined;
    const now = Date.now();
    if (x < now || x <= floor || x > now + 2 * EVENT_TTL_MS) {
      drops.expired++;
      return undefined;
    }
    if (seen.has(n)) {
      drops.replayed++;
      return undefined;
    }
    if (!KINDS.has(k)) {
      drops.kind++;
      return undefined;
    }
    const uriWanted = k === 'resource_updated';
    if (
      uriWanted !== (u !== undefined) ||
      (u !== undefined && (u.length === 0 || u.length > MAX_URI)) ||
      (p !== undefined && !isJsonObject(p))
    ) {
      drops.schema++;
      return undefined;
    }
    remember(n, x, now);
    const params = p === undefined ? {} : { params: p as ServerEvent['params'] };
    return (uriWanted ? { kind: k, uri: u, ...params } : { kind: k, ...params }) as ServerEvent;
  }

  /**
   * Keeps `n` until it expires. Expired nonces are swept from the oldest as new ones come; past
   * `MAX_SEEN` the oldest is forgotten early and `floor` rises to its expiry: nothing expiring
   * no later is accepted, so a forgotten nonce is never accepted again.
   */
  function remember(n: string, x: number, now: number): void {
    for (const [k, until] of seen) {
      if (until >= now) break;
      seen.delete(k);
    }
    while (seen.size >= MAX_SEEN) {
      const [oldest, until] = seen.entries().next().value as [string, number];
      seen.delete(oldest);
      floor = Math.max(floor, until);
    }
    seen.set(n, x);
  }

  return {
    ready,
    publish(event) {
      deliver(event);
      if (closed) return;
      if (redis.status !== 'ready') return notSent(`Redis is ${redis.status}`);
      if (inFlight >= MAX_IN_FLIGHT) return notSent(`${MAX_IN_FLIGHT} already waiting for Redis`);
      let message: string;
      try {
        const { kind, params } = event;
        const uri = kind === 'resource_updated' ? event.uri : undefined;
        message = sealEvent(mac, channel, {
          f: id,
          n: randomBytes(16).toString('base64url'),
          x: Date.now() + EVENT_TTL_MS,
          k: kind,
          ...(uri === undefined ? {} : { u: uri }),
          ...(params === undefined ? {} : { p: params }),
        });
      } catch (error) {
        return notSent(`not JSON (${(error as Error)?.message})`);
      }
      if (Buffer.byteLength(message, 'utf8') > MAX_EVENT_MESSAGE_BYTES)
        return notSent(`larger than ${MAX_EVENT_MESSAGE_BYTES} bytes`);
      inFlight++;
      redis.publish(channel, message).then(
        () => {
          inFlight--;
        },
        (error: unknown) => {
          inFlight--;
          notSent(String((error as Error)?.message ?? error));
        },
      );
    },
    subscribe(listener) {
      listeners.add(listener);
      let live = true;
      return () => {
        if (!live) return;
        live = false;
        listeners.delete(listener);
      };
    },
    hearing: () => hearing,
    dropped: () => ({ ...drops }),
    unsent: () => unsent,
    async close() {
      if (closed) return;
      closed = true;
      hearing = false;
      try {
        if (subscriber.status === 'ready') {
          await bounded(subscriber.unsubscribe(channel), timeoutMs);
          await bounded(subscriber.quit(), timeoutMs);
        }
      } catch {
        // Redis gone or slow: the connection is dropped below all the same.
      } finally {
        subscriber.disconnect();
      }
    },
  };
}

function isEnvelope(value: unknown): value is EventEnvelope {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const e = value as Record<string, unknown>;
  return (
    typeof e.f === 'string' &&
    e.f.length > 0 &&
    e.f.length <= MAX_ID &&
    typeof e.n === 'string' &&
    e.n.length >= 16 &&
    e.n.length <= MAX_ID &&
    Number.isSafeInteger(e.x) &&
    typeof e.k === 'string' &&
    e.k.length <= MAX_ID &&
    (e.u === undefined || typeof e.u === 'string')
  );
}

/** A JSON object (what `JSON.parse` made of one): not null, not a list. */
function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
