import { hkdfSync, randomBytes } from 'node:crypto';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { Redis } from 'ioredis';
import { bounded, storeTimeout } from '../claims/bounded.js';
import { decrypt, encrypt, hmacSha256, type Mac, sameMac } from '../digest.js';
import { checkSecret } from '../secret.js';
import { listenedResources } from './listen-context.js';

/** The channel the replicas share and the secret their messages are sealed with. */
export interface RedisEventBusOptions {
  /**
   * The replicas' shared secret (≥ 32 characters; the state secret does): every message is sealed
   * (AES-256-GCM under a key derived from it, bound to the channel, the sender, the nonce and the
   * expiry), so whoever can read the Redis learns no event, URI or params, and whoever else can
   * write to it makes no client re-list nor hears of a resource it names.
   */
  secret: string;
  /** The pub/sub channel. Default `elicitkit:bus`. Replicas of one deployment share it; another deployment uses its own. */
  channel?: string;
  /** The longest `close()` waits for Redis to confirm, ms. Default 5 s. A whole number, at least 1. */
  timeoutMs?: number;
  /**
   * Told what a listener threw, each event that could not be sent to the other replicas (it was
   * still delivered here), and once that a replica of the previous version is on the channel.
   */
  onerror?: (error: Error) => void;
}

/** Why messages from the channel were dropped, counted. */
export interface RedisEventBusDrops {
  /** Longer than `MAX_EVENT_MESSAGE_BYTES`: dropped unread. */
  oversized: number;
  /** Not sealed with this deployment's key (another key, another channel, not a sealed message at all, or altered on the way). */
  signature: number;
  /**
   * Signed by a replica of the previous version (signed, not encrypted) with this deployment's
   * secret: not read, since this version reads sealed messages only (the first is told to `onerror`).
   */
  version: number;
  /** Sealed with the key, but not the envelope this bus sends (not JSON, missing or mistyped fields). */
  malformed: number;
  /** Sealed, of a kind this replica does not know (a later version's). */
  kind: number;
  /** Sealed, of a known kind, but its URI or params are not what the SDK expects. */
  schema: number;
  /** Past its expiry, expiring further out than any sender sets, or no later than a nonce forgotten to keep the bound (`MAX_SEEN`). */
  expired: number;
  /** Its nonce was taken already: a copy sent again. */
  replayed: number;
}

/** A `ServerEventBus` over Redis pub/sub, for `createHttpHandler({ bus })`. */
export interface RedisEventBus extends ServerEventBus {
  /**
   * Resolves once this bus both hears the channel (subscribed) and can send on it (the connection
   * it was given is ready) for the first time, however long Redis takes to be up: until then, what
   * the other replicas say is not heard here, and an event published here is not sent to them (it
   * is counted in `unsent()`, and a resync follows). Never settles for a bus closed before.
   */
  readonly ready: Promise<void>;
  /** Whether its subscription is up now: while it is not, what the other replicas say is not heard. */
  hearing(): boolean;
  /** Messages from the channel dropped, by reason. */
  dropped(): RedisEventBusDrops;
  /**
   * Events published here but not sent to the other replicas (Redis not connected, too many still
   * in flight, too big, not JSON). For each, once a message can go again, the others are told to
   * take every list and every resource their listen streams follow as changed.
   */
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
/** At most this many nonces remembered; past it the one expiring soonest goes, and nothing expiring no later than it is accepted. */
export const MAX_SEEN = 100_000;
const MAX_ID = 64;
const MAX_URI = 8 * 1024;
const KINDS = new Set<string>([
  'tools_list_changed',
  'prompts_list_changed',
  'resources_list_changed',
  'resource_updated',
]);
/** The step an event's JSON is padded to before it is sealed, in bytes. */
export const PAD_BYTES = 256;
/** What a replica that could not send an event says once it can: take everything as changed. */
const RESYNC = JSON.stringify({ k: 'resync' });
/** What this version's messages start with: `v2.<sender>.<nonce>.<expiry>.<sealed event>`. */
const VERSION = 'v2';
const ID = /^[A-Za-z0-9_-]+$/;
const EXPIRY = /^[0-9]{1,16}$/;
/** The previous version's messages: a 43-character HMAC, a dot, the JSON. */
const PREVIOUS = /^[A-Za-z0-9_-]{43}\./;

/** The key a deployment's bus messages are sealed with (AES-256-GCM). Exported for the tests' hostile messages. */
export function eventBusKey(secret: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, new Uint8Array(0), 'elicitkit server events v2 encryption', 32));
}

/** The key the previous version signed with: only to tell its messages from junk (`version`), never to read them. */
function previousKey(secret: string): Mac {
  return hmacSha256(new Uint8Array(hkdfSync('sha256', secret, new Uint8Array(0), 'elicitkit server events v1', 32)));
}

/** What the encryption binds the event to besides itself: the channel, who sent it, which one, until when. */
function associated(channel: string, f: string, n: string, x: string): Uint8Array {
  return Buffer.from(`elicitkit server events ${VERSION}\n${channel}\n${f}\n${n}\n${x}`, 'utf8');
}

/**
 * A message: `v2`, the sender, the nonce and the expiry in the clear (what a replica needs to
 * skip its own and refuse a replay), then the event (`{ k, u?, p? }` as JSON) encrypted and
 * authenticated, bound to the channel and to those three. Any head and text: the tests seal hostile ones.
 */
export function sealEvent(
  key: Uint8Array,
  channel: string,
  head: { f: string; n: string; x: number | string },
  plain: string,
): string {
  const x = String(head.x);
  return `${VERSION}.${head.f}.${head.n}.${x}.${encrypt(key, plain, associated(channel, head.f, head.n, x))}`;
}

/**
 * The nonces of the messages taken, each until its message expires, at most `max`. Ordered by
 * expiry (a heap), not by arrival: what expired is swept whatever came before it, and past the
 * bound the one expiring soonest is forgotten, `floor` rising to its expiry; nothing expiring no
 * later than `floor` is taken again, so a forgotten nonce is never taken twice, and the floor
 * rises no higher than it must (a message expiring far out, heard first, never pushes it out to
 * refuse every message sent after).
 */
export class NonceMemory {
  private readonly expiries = new Map<string, number>();
  /** A binary min-heap by expiry, as two parallel lists. */
  private readonly heapX: number[] = [];
  private readonly heapN: string[] = [];
  private floor = Number.NEGATIVE_INFINITY;

  constructor(private readonly max: number) {}

  get size(): number {
    return this.expiries.size;
  }

  /** Whether a message with nonce `n` expiring at `x` was taken (`replayed`), or may have been and was forgotten (`forgotten`). */
  seen(n: string, x: number): 'replayed' | 'forgotten' | undefined {
    if (this.expiries.has(n)) return 'replayed';
    return x <= this.floor ? 'forgotten' : undefined;
  }

  /** Takes `n` until `x`; sweeps what expired before `now`, and past the bound forgets what expires soonest. */
  remember(n: string, x: number, now: number): void {
    while (this.heapX.length > 0 && (this.heapX[0] as number) < now) this.pop();
    while (this.heapX.length >= this.max) this.floor = Math.max(this.floor, this.pop());
    this.expiries.set(n, x);
    this.push(x, n);
  }

  private push(x: number, n: string): void {
    const xs = this.heapX;
    const ns = this.heapN;
    let i = xs.length;
    xs.push(x);
    ns.push(n);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((xs[parent] as number) <= x) break;
      xs[i] = xs[parent] as number;
      ns[i] = ns[parent] as string;
      i = parent;
    }
    xs[i] = x;
    ns[i] = n;
  }

  /** Forgets the nonce expiring soonest; its expiry. */
  private pop(): number {
    const xs = this.heapX;
    const ns = this.heapN;
    const top = xs[0] as number;
    this.expiries.delete(ns[0] as string);
    const x = xs.pop() as number;
    const n = ns.pop() as string;
    const size = xs.length;
    if (size > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= size) break;
        const right = left + 1;
        const child = right < size && (xs[right] as number) < (xs[left] as number) ? right : left;
        if ((xs[child] as number) >= x) break;
        xs[i] = xs[child] as number;
        ns[i] = ns[child] as string;
        i = child;
      }
      xs[i] = x;
      ns[i] = n;
    }
    return top;
  }
}

/**
 * A `ServerEventBus` the replicas of one deployment share through Redis pub/sub, for
 * `createHttpHandler(factory, { bus })`: a change told on any replica (`handler.notify`) reaches the
 * 2026-07-28 `subscriptions/listen` streams of every one. `publish` delivers to this process's
 * listeners at once (as the SDK's `InMemoryServerEventBus`) and sends the event, sealed, on the
 * channel; each replica delivers what it hears there to its own listeners, its own messages
 * skipped (each bus has a random id), so no event is delivered twice.
 *
 * Each event is encrypted and authenticated (AES-256-GCM) with a key derived from `secret`, bound
 * to the channel, its sender, a nonce and an expiry `EVENT_TTL_MS` out: whoever reads the Redis
 * sees who sent a message and when it expires, never its kind, URI or params (the event is padded
 * to a multiple of `PAD_BYTES` before it is sealed: the length tells apart no kind, only URIs and
 * params more than a step apart in length). One that is larger
 * than `MAX_EVENT_MESSAGE_BYTES`, not sealed with this key, not an envelope, of an unknown kind,
 * with a URI or params not as the SDK expects (params a JSON object), expired, or a copy of one
 * heard already is dropped and counted (`dropped()`), never delivered and never thrown; so is one
 * signed by a replica of the previous (signed-only) version, counted as `version` and told once.
 *
 * Pub/sub delivers at most once: what is published while Redis is down, or while this replica's
 * subscription is, is lost. So publishing never waits or queues for Redis (an event not sent is
 * counted, `unsent()`), and once its subscription is back after being lost this bus tells its
 * listeners that the tools, prompts and resources lists changed, and each listen stream that
 * follows resources (`resourceSubscriptions`, known from the request `createHttpHandler` served)
 * that each of its URIs was updated: its clients list and read again rather than miss a change.
 * The same is owed to the others for an event this bus could not send: once a message can go
 * again it sends one (`resync`), and each replica hearing it tells its listeners so.
 *
 * @example
 * const bus = createRedisEventBus(redis, { secret: process.env.ELICITKIT_STATE_SECRET });
 * const http = createHttpHandler(factory, { bus, sessions: relay });
 */
export function createRedisEventBus(redis: Redis, options: RedisEventBusOptions): RedisEventBus {
  // Counted in bytes, as every secret the kit takes (`checkSecret`).
  checkSecret('the event bus secret', options.secret);
  if (typeof options.secret !== 'string') throw new TypeError('the event bus secret must be a string');
  const channel = options.channel ?? 'elicitkit:bus';
  if (typeof channel !== 'string' || channel.length === 0 || channel.length > 256)
    throw new TypeError('the event bus channel must be 1 to 256 characters');
  const timeoutMs = storeTimeout(options.timeoutMs);
  const key = eventBusKey(options.secret);
  let previous: Mac | undefined;
  const id = randomBytes(16).toString('base64url');
  /** Each listener, and the resource URIs its listen stream follows (none for one subscribed otherwise). */
  const listeners = new Map<(event: ServerEvent) => void, readonly string[] | undefined>();
  const drops: RedisEventBusDrops = {
    oversized: 0,
    signature: 0,
    version: 0,
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
  const seen = new NonceMemory(MAX_SEEN);

  const report = (error: unknown) => {
    try {
      options.onerror?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // An onerror that throws takes nothing down with it.
    }
  };
  const tell = (listener: (event: ServerEvent) => void, event: ServerEvent) => {
    try {
      listener(event);
    } catch (error) {
      report(error);
    }
  };
  const deliver = (event: ServerEvent) => {
    for (const listener of [...listeners.keys()]) tell(listener, event);
  };
  /**
   * After a time it could not hear: every list may have changed, and so may every resource a
   * listener follows. Each listen stream is told its own URIs (its filter would pass no other).
   */
  const missed = () => {
    deliver({ kind: 'tools_list_changed' });
    deliver({ kind: 'prompts_list_changed' });
    deliver({ kind: 'resources_list_changed' });
    for (const [listener, uris] of [...listeners])
      for (const uri of uris ?? []) if (listeners.has(listener)) tell(listener, { kind: 'resource_updated', uri });
  };
  // An event the other replicas may have missed, for they were not sent it: they are told to
  // take everything as changed (`resync`) once a message can go again.
  let owed = false;
  const notSent = (why: string) => {
    unsent++;
    owed = true;
    report(new Error(`event not sent to the other replicas: ${why}`));
    flush();
  };
  /** Seals `plain` and publishes it, never waiting or queueing for Redis; an event (not a resync) not sent is counted. */
  const send = (plain: string, event: boolean) => {
    const failed = (why: string) => {
      if (event) notSent(why);
      else owed = true;
    };
    if (redis.status !== 'ready') return failed(`Redis is ${redis.status}`);
    if (inFlight >= MAX_IN_FLIGHT) return failed(`${MAX_IN_FLIGHT} already waiting for Redis`);
    const head = { f: id, n: randomBytes(16).toString('base64url'), x: Date.now() + EVENT_TTL_MS };
    // Padded (JSON allows trailing spaces), so the length on the wire tells no kind apart; one too
    // big padded goes unpadded, its length telling only that it is large.
    let message = sealEvent(key, channel, head, padded(plain));
    if (Buffer.byteLength(message, 'utf8') > MAX_EVENT_MESSAGE_BYTES) message = sealEvent(key, channel, head, plain);
    if (Buffer.byteLength(message, 'utf8') > MAX_EVENT_MESSAGE_BYTES)
      return failed(`larger than ${MAX_EVENT_MESSAGE_BYTES} bytes`);
    inFlight++;
    redis.publish(channel, message).then(
      () => {
        inFlight--;
        flush();
      },
      (error: unknown) => {
        inFlight--;
        failed(String((error as Error)?.message ?? error));
      },
    );
  };
  /** Sends the resync owed, if any, once Redis takes messages again. Each is sealed after the failures it makes up for. */
  const flush = () => {
    if (!owed || closed || redis.status !== 'ready' || inFlight >= MAX_IN_FLIGHT) return;
    owed = false;
    send(RESYNC, false);
  };
  // `ready` waits for both connections: the subscriber's is its own (below), this one the caller's.
  let subscribed: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    subscribed = resolve;
  });
  let subscribedOnce = false;
  const readyIfBoth = () => {
    if (subscribedOnce && !closed && redis.status === 'ready') subscribed();
  };
  redis.on('ready', flush);
  redis.on('ready', readyIfBoth);
  // Given one made with `lazyConnect`: nothing here sends a command before it is ready, so nothing
  // would ever connect it.
  if (redis.status === 'wait') redis.connect().catch(() => {});

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
  subscriber.on('ready', () => {
    if (closed) return;
    subscriber.subscribe(channel).then(
      () => {
        if (closed || subscriber.status !== 'ready') return;
        hearing = true;
        subscribedOnce = true;
        readyIfBoth();
        if (!lost) return;
        lost = false;
        missed();
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
    const parts = message.split('.', 6);
    if (parts.length !== 5 || parts[0] !== VERSION) {
      if (PREVIOUS.test(message) && fromPrevious(message)) {
        if (drops.version++ === 0)
          report(
            new Error(
              'a replica of the previous version (signed, not encrypted) is on the channel: its messages are not read',
            ),
          );
      } else drops.signature++;
      return undefined;
    }
    const [, f, n, x, e] = parts as [string, string, string, string, string];
    const plain = decrypt(key, e, associated(channel, f, n, x));
    // The tag is the check that it was sealed with this key, for this channel, sender, nonce and expiry.
    if (plain === undefined) {
      drops.signature++;
      return undefined;
    }
    if (f === id) return undefined;
    let event: unknown;
    try {
      event = JSON.parse(plain);
    } catch {
      drops.malformed++;
      return undefined;
    }
    if (!isHead(f, n, x) || !isEvent(event)) {
      drops.malformed++;
      return undefined;
    }
    const expiry = Number(x);
    const now = Date.now();
    if (expiry < now || expiry > now + 2 * EVENT_TTL_MS) {
      drops.expired++;
      return undefined;
    }
    const taken = seen.seen(n, expiry);
    if (taken) {
      drops[taken === 'replayed' ? 'replayed' : 'expired']++;
      return undefined;
    }
    const { k, u, p } = event;
    if (k === 'resync' && u === undefined && p === undefined) {
      seen.remember(n, expiry, now);
      missed();
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
    seen.remember(n, expiry, now);
    const params = p === undefined ? {} : { params: p as ServerEvent['params'] };
    return (uriWanted ? { kind: k, uri: u, ...params } : { kind: k, ...params }) as ServerEvent;
  }

  /** Whether `message` was signed with this secret by a replica of the previous version. */
  function fromPrevious(message: string): boolean {
    previous ??= previousKey(options.secret);
    const json = message.slice(44);
    return sameMac(Buffer.from(message.slice(0, 43), 'base64url'), previous.bytes(`${channel}\n${json}`));
  }

  return {
    ready,
    publish(event) {
      deliver(event);
      if (closed) return;
      let plain: string;
      try {
        const { kind, params } = event;
        const uri = kind === 'resource_updated' ? event.uri : undefined;
        plain = JSON.stringify({
          k: kind,
          ...(uri === undefined ? {} : { u: uri }),
          ...(params === undefined ? {} : { p: params }),
        });
      } catch (error) {
        return notSent(`not JSON (${(error as Error)?.message})`);
      }
      send(plain, true);
    },
    subscribe(listener) {
      // A listen stream's: the SDK subscribes it while createHttpHandler serves its request.
      listeners.set(listener, listenedResources());
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
      redis.off('ready', flush);
      redis.off('ready', readyIfBoth);
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

/**
 * `plain` with spaces after it up to the next multiple of `PAD_BYTES` (UTF-8): every event of a
 * kind without a URI or params, and a resync, seals to one length, as do URIs and params of
 * lengths within one step.
 */
function padded(plain: string): string {
  const bytes = Buffer.byteLength(plain, 'utf8');
  return plain + ' '.repeat(Math.ceil(bytes / PAD_BYTES) * PAD_BYTES - bytes);
}

/** The sender, nonce and expiry in the clear, as this bus sends them (authenticated already: a replica holding the key may send any). */
function isHead(f: string, n: string, x: string): boolean {
  return (
    f.length > 0 &&
    f.length <= MAX_ID &&
    ID.test(f) &&
    n.length >= 16 &&
    n.length <= MAX_ID &&
    ID.test(n) &&
    EXPIRY.test(x) &&
    Number.isSafeInteger(Number(x))
  );
}

/** The sealed event: its kind, and a URI and params if any. */
function isEvent(value: unknown): value is { k: string; u?: string; p?: unknown } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const e = value as Record<string, unknown>;
  return typeof e.k === 'string' && e.k.length <= MAX_ID && (e.u === undefined || typeof e.u === 'string');
}

/** A JSON object (what `JSON.parse` made of one): not null, not a list. */
function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
