import type { Redis } from 'ioredis';
import { bounded, STORE_TIMEOUT_MS } from '../claims/bounded.js';
import { randomUUID, sha256 } from '../digest.js';

/** A subscription's name in a replica's liveness (never `1`, what a replica before them writes). */
const newHearing = (): string => `h${randomUUID()}`;

/** Directory entries remembered as found (a session never moves); the oldest go first past it. */
const LOCATED_MAX = 10_000;
/** How long closing waits for Redis to remove this replica's entries (`closeAll`). */
const CLOSE_WAIT_MS = 2_000;

/** Where a session lives: the replica holding it, and a digest of its owner. */
export interface SessionEntry {
  holder: string;
  digest: string;
  /** The holder reads `batch` on a relayed request, and sends that requester its frames batched. */
  batches: boolean;
  /**
   * The holder reads `aead` on a relayed request and messages authenticated by their encryption
   * alone (`frames.ts`), and sends that requester its frames so.
   */
  aead: boolean;
  /** Where the holder takes direct connections from other replicas (`direct.ts`), if it does. */
  address: string | undefined;
  /** The holder takes an identity of up to `MAX_IDENTITY` characters (`frames.ts`), not 64 scopes at most. */
  wideIdentity: boolean;
  /**
   * The holder keeps its liveness (`<prefix>alive:<replica>`) current: replicas that write the
   * sixth line (`IDENTITY`) came with it, those of earlier versions write none.
   */
  beats: boolean;
  /** The holder numbers a response's frames for a requester that asks (`seq`: `frames.ts`). */
  sequenced: boolean;
  /**
   * The holder answers `ping`s on a direct connection, and reads `ping` on a relayed request
   * (`frames.ts`, `direct.ts`).
   */
  pings: boolean;
  /** The holder answers an `abort` that asks (`ack`) with `dropped` once it has dropped the relay (`frames.ts`). */
  acks: boolean;
  /** The holder takes an identity's `extra` and `resource` (`frames.ts`). */
  wholeIdentity: boolean;
}

/**
 * What an entry's third line says its holder understands; an entry without one (a replica of an
 * earlier version, which reads only the first two) is sent frames one at a time.
 */
const BATCHES = 'batch';
/**
 * The fourth line: the holder reads unsigned (`aead`) messages. A replica of the version before
 * it reads the first three lines only, and signs every message to this holder as before.
 */
const AEAD = 'aead';
/**
 * The sixth line: the holder takes an identity bounded by its size alone (`MAX_IDENTITY`). The
 * fifth, its address, is then written empty when it takes no direct connections; a replica of an
 * earlier version reads five lines at most, and an empty address as none.
 */
const IDENTITY = 'identity';
/**
 * The seventh line: the holder numbers the frames of a response for a requester that asks
 * (`seq`). A replica of an earlier version reads six lines at most, and its own entry has none:
 * it is sent no `seq`, which it would refuse.
 */
const SEQ = 'seq';
/**
 * The eighth line: the holder answers a `ping` on a direct connection with a `pong`, and reads
 * `ping` on a relayed request (its requester answers them too). A replica of an earlier version
 * reads seven lines at most and writes none: it is never pinged, which would close the connection
 * (it refuses the frame), nor sent `ping` on a request, and does not ping.
 */
const PING = 'ping';
/**
 * The ninth line: the holder reads `ack` on an `abort` and answers it with `dropped` once the relay
 * is dropped there. A replica of an earlier version reads eight lines at most and writes none: it
 * is never sent `ack` (it would refuse the frame), and an abort that went out to it is taken as
 * heard, as before.
 */
const ACK = 'ack';
/**
 * The tenth line: the holder takes an identity whole — with its `extra` and `resource`, which an
 * app's `identify` may name the person by. A replica of an earlier version reads nine lines at
 * most and writes none: it is never sent them (it would refuse the frame), and a request whose
 * identity holds them is not relayed to it (its person would be lost on the way).
 */
const WHOLE = 'whole';

/**
 * The sessions directory in Redis, as one replica sees it: `<prefix>session:<id>` → the holder,
 * a digest of the owner, what the holder understands (`BATCHES`, `AEAD`) and, on a fifth line for
 * a holder that takes direct connections, the `host:port` it takes them on (replicas of earlier
 * versions read four lines and relay through Redis), and on a sixth (`IDENTITY`) that it takes a
 * larger identity, on a seventh (`SEQ`) that it numbers a response's frames, on an eighth (`PING`) that it answers pings on a direct connection, and on a ninth (`ACK`) that it says when it has dropped a relay it was told to. Beside them, `<prefix>alive:<replica>` says a replica's heartbeat is current:
 * one nobody hears on its channel while it beats is cut from Redis for a moment, not gone. The
 * entries this replica holds are renewed by that heartbeat (written again, not merely extended: an entry dropped while
 * this replica was briefly unreachable comes back with the next beat). Where others' sessions
 * were found is remembered: a session never moves, so its entry is read from Redis once. A stale
 * one costs nothing — the replica it names answers "Session not found" itself, or nobody listens
 * on its channel and the entry is dropped.
 */
export class SessionEntries {
  private readonly held = new Map<string, string>();
  private readonly located = new Map<string, string>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  /** A beat not answered yet: the next one waits for it, so a client that queues does not pile them up. */
  private beating_ = false;
  /** When (`performance.now()`) Redis last answered a beat: this replica's liveness lapses `ttlMs` after, at the latest. */
  private lastBeat = Number.NEGATIVE_INFINITY;
  /** When that beat was sent: Redis ran it no earlier, so this replica's liveness lapses `ttlMs` after, at the earliest. */
  private lastBeatSent = Number.NEGATIVE_INFINITY;
  /**
   * What this replica's liveness holds: which of its subscriptions to its channel is the current
   * one, new each time it subscribes again (`subscribedAgain`). A requester that reads another than
   * the one it read before it published knows its request may have been lost in the gap.
   */
  private hearing = newHearing();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly replica: string,
    private readonly ttlMs: number,
    /** Where this replica takes direct connections, once it listens. */
    private readonly address: () => string | undefined = () => undefined,
    /**
     * How long each lookup and write waits for Redis, ms: past it, it rejects (`StoreTimeoutError`)
     * as if Redis were unreachable — a client that queues commands while Redis is away would
     * otherwise hold it for as long as Redis is.
     */
    private readonly timeoutMs: number = STORE_TIMEOUT_MS,
  ) {}

  /** Records a session this replica now holds. */
  async open(id: string, owner: string): Promise<void> {
    const address = this.address();
    const entry = `${this.replica}\n${sha256(owner, 'hex')}\n${BATCHES}\n${AEAD}\n${address ?? ''}\n${IDENTITY}\n${SEQ}\n${PING}\n${ACK}\n${WHOLE}`;
    await bounded(this.redis.set(this.key(id), entry, 'PX', this.ttlMs), this.timeoutMs);
    this.held.set(id, entry);
  }

  /** Forgets a session this replica held. */
  close(id: string): void {
    if (!this.held.delete(id)) return;
    void this.redis.del(this.key(id)).catch(() => {});
  }

  /** Where session `id` lives, if anywhere. Rejects when Redis cannot be reached. */
  async find(id: string): Promise<SessionEntry | undefined> {
    let entry = this.located.get(id) ?? null;
    if (entry === null) {
      entry = await bounded(this.redis.get(this.key(id)), this.timeoutMs);
      if (entry !== null) this.remember(id, entry);
    }
    const [holder, digest, can, reads, address, identity, numbers, answers, acks, whole] = entry?.split('\n') ?? [];
    return holder && digest
      ? {
          holder,
          digest,
          batches: can === BATCHES,
          aead: reads === AEAD,
          address: address || undefined,
          wideIdentity: identity === IDENTITY,
          beats: identity === IDENTITY,
          sequenced: numbers === SEQ,
          pings: answers === PING,
          acks: acks === ACK,
          wholeIdentity: whole === WHOLE,
        }
      : undefined;
  }

  /**
   * Whether this replica's liveness may have lapsed in Redis: no beat sent in the last `ttlMs` was
   * answered (its process was paused, or Redis did not answer), so other replicas may have taken it
   * for gone or cut off, and given up on what they relayed to it.
   */
  mayHaveLapsed(): boolean {
    return performance.now() >= this.lastBeatSent + this.ttlMs;
  }

  /** How long, ms, until this replica's liveness has lapsed in Redis for sure (0 when it has). */
  lapsesIn(): number {
    return Math.max(0, this.lastBeat + this.ttlMs - performance.now());
  }

  /** Whether `replica`'s heartbeat is current (it did not stop, and was not killed long enough ago). */
  async beating(replica: string): Promise<boolean> {
    return (await bounded(this.redis.exists(this.alive(replica)), this.timeoutMs)) === 1;
  }

  /**
   * Which subscription of `replica` to its channel is current (`null`: its heartbeat lapsed). A
   * replica before these were kept says `1` whatever happens to its subscription.
   */
  async hearingOf(replica: string): Promise<string | null> {
    return bounded(this.redis.get(this.alive(replica)), this.timeoutMs);
  }

  /**
   * This replica subscribed to its channel again (its connection to Redis came back): what was
   * published to it meanwhile is gone, and its requesters learn so from its liveness, which now
   * names the new subscription — at once, not at the next beat.
   */
  async subscribedAgain(): Promise<void> {
    this.hearing = newHearing();
    const sent = performance.now();
    // Its entries too, at once: a Redis that restarted forgot them, and a request for one of its
    // sessions reaching another replica would find none (each is written again at the next beat).
    const pipeline = this.redis.pipeline();
    pipeline.set(this.alive(this.replica), this.hearing, 'PX', this.ttlMs);
    for (const [id, entry] of this.held) pipeline.set(this.key(id), entry, 'PX', this.ttlMs);
    await bounded(pipeline.exec(), this.timeoutMs);
    this.beaten(sent);
  }

  /**
   * Told when a beat is answered after a gap as long as the heartbeat lives (`ttlMs`, from the
   * last answered one's sending to its sending): this replica's liveness may have lapsed in
   * between, whatever it says now — its process was paused, or Redis did not answer. `before`:
   * when the beat that ended the gap was sent.
   */
  lapsed: ((before: number) => void) | undefined;

  /** A beat sent at `sent` was answered now. */
  private beaten(sent: number): void {
    this.lastBeat = performance.now();
    const gap = sent >= this.lastBeatSent + this.ttlMs && this.lastBeatSent > Number.NEGATIVE_INFINITY;
    this.lastBeatSent = Math.max(this.lastBeatSent, sent);
    if (gap) this.lapsed?.(sent);
  }

  /** The holder of `id` is gone, and its sessions with it: the next request is answered without a round trip. */
  forget(id: string): void {
    this.located.delete(id);
    void this.redis.del(this.key(id)).catch(() => {});
  }

  /** Starts the heartbeat: this replica's liveness now, then it and its entries renewed every third of their ttl. */
  async beat(): Promise<void> {
    const first = performance.now();
    await bounded(this.redis.set(this.alive(this.replica), this.hearing, 'PX', this.ttlMs), this.timeoutMs);
    this.beaten(first);
    this.heartbeat = setInterval(() => {
      if (this.beating_) return;
      this.beating_ = true;
      const sent = performance.now();
      const pipeline = this.redis.pipeline();
      pipeline.set(this.alive(this.replica), this.hearing, 'PX', this.ttlMs);
      for (const [id, entry] of this.held) pipeline.set(this.key(id), entry, 'PX', this.ttlMs);
      void pipeline
        .exec()
        .then((replies) => {
          if (replies?.[0] && !replies[0][0]) this.beaten(sent);
        })
        .catch(() => {})
        .finally(() => {
          this.beating_ = false;
        });
    }, this.ttlMs / 3);
    (this.heartbeat as { unref?: () => void }).unref?.();
  }

  /**
   * Stops the heartbeat and removes every entry this replica held, and its liveness: it is gone.
   * Waits for Redis at most `CLOSE_WAIT_MS`: a client that queues commands while Redis cannot be
   * reached (ioredis's offline queue, with `maxRetriesPerRequest: null`) would otherwise hold a
   * shutdown for ever; the entries not removed lapse on their own, `ttlMs` after the last beat.
   * Not connected, it sends nothing: queued, the removal would run whenever Redis came back, and
   * could take the liveness of a replica started since under the same id.
   */
  async closeAll(): Promise<void> {
    clearInterval(this.heartbeat);
    const keys = [this.alive(this.replica), ...[...this.held.keys()].map((id) => this.key(id))];
    this.held.clear();
    if (this.redis.status !== 'ready') return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
      (timer as { unref?: () => void }).unref?.();
    });
    await Promise.race([this.redis.del(...keys).catch(() => 0), waited]);
    clearTimeout(timer);
  }

  private key(id: string): string {
    return `${this.prefix}session:${id}`;
  }

  private alive(replica: string): string {
    return `${this.prefix}alive:${replica}`;
  }

  private remember(id: string, entry: string): void {
    // Bounded: the oldest go first (a Map iterates in insertion order).
    if (this.located.size >= LOCATED_MAX) this.located.delete(this.located.keys().next().value as string);
    this.located.set(id, entry);
  }
}
