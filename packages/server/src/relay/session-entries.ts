import type { Redis } from 'ioredis';
import { sha256 } from '../digest.js';

/** Directory entries remembered as found (a session never moves); the oldest go first past it. */
const LOCATED_MAX = 10_000;

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
 * The sessions directory in Redis, as one replica sees it: `<prefix>session:<id>` → the holder,
 * a digest of the owner, what the holder understands (`BATCHES`, `AEAD`) and, on a fifth line for
 * a holder that takes direct connections, the `host:port` it takes them on (replicas of earlier
 * versions read four lines and relay through Redis). The entries this replica
 * holds are renewed by a heartbeat (written again, not merely extended: an entry dropped while
 * this replica was briefly unreachable comes back with the next beat). Where others' sessions
 * were found is remembered: a session never moves, so its entry is read from Redis once. A stale
 * one costs nothing — the replica it names answers "Session not found" itself, or nobody listens
 * on its channel and the entry is dropped.
 */
export class SessionEntries {
  private readonly held = new Map<string, string>();
  private readonly located = new Map<string, string>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly replica: string,
    private readonly ttlMs: number,
    /** Where this replica takes direct connections, once it listens. */
    private readonly address: () => string | undefined = () => undefined,
  ) {}

  /** Records a session this replica now holds. */
  async open(id: string, owner: string): Promise<void> {
    const address = this.address();
    const entry = `${this.replica}\n${sha256(owner, 'hex')}\n${BATCHES}\n${AEAD}${address ? `\n${address}` : ''}`;
    await this.redis.set(this.key(id), entry, 'PX', this.ttlMs);
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
      entry = await this.redis.get(this.key(id));
      if (entry !== null) this.remember(id, entry);
    }
    const [holder, digest, can, reads, address] = entry?.split('\n') ?? [];
    return holder && digest
      ? { holder, digest, batches: can === BATCHES, aead: reads === AEAD, address: address || undefined }
      : undefined;
  }

  /** The holder of `id` is gone, and its sessions with it: the next request is answered without a round trip. */
  forget(id: string): void {
    this.located.delete(id);
    void this.redis.del(this.key(id)).catch(() => {});
  }

  /** Starts renewing this replica's entries. */
  beat(): void {
    this.heartbeat = setInterval(() => {
      if (this.held.size === 0) return;
      const pipeline = this.redis.pipeline();
      for (const [id, entry] of this.held) pipeline.set(this.key(id), entry, 'PX', this.ttlMs);
      void pipeline.exec().catch(() => {});
    }, this.ttlMs / 3);
    (this.heartbeat as { unref?: () => void }).unref?.();
  }

  /** Stops the heartbeat and removes every entry this replica held. */
  async closeAll(): Promise<void> {
    clearInterval(this.heartbeat);
    if (this.held.size > 0) await this.redis.del(...[...this.held.keys()].map((id) => this.key(id))).catch(() => 0);
    this.held.clear();
  }

  private key(id: string): string {
    return `${this.prefix}session:${id}`;
  }

  private remember(id: string, entry: string): void {
    // Bounded: the oldest go first (a Map iterates in insertion order).
    if (this.located.size >= LOCATED_MAX) this.located.delete(this.located.keys().next().value as string);
    this.located.set(id, entry);
  }
}
