import type { Redis } from 'ioredis';
import type { Answer } from '../types.js';
import { settlementOf } from './memory.js';
import { OPEN, SETTLE } from './redis-scripts.js';
import type { PendingEntry, ResolveResult, Settlement } from './types.js';

type Final = Exclude<Settlement, { reason: 'unknown' }>;

const MALFORMED = Symbol('malformed');

/**
 * The questions under one prefix in Redis: their keys, the scripts that open and settle them
 * atomically, and reading them back. Knows nothing of who waits for them.
 */
export class RedisQuestions {
  /** Where the settling script publishes the id of each question it settles. */
  readonly channel: string;
  /** This registry's id, named by each question it opens as its waiter. */
  readonly waiter = crypto.randomUUID();
  /** Its alive mark: while it stands, the questions it opened are waited for. */
  readonly mark: string;
  /** Whole milliseconds: PEXPIRE takes no fraction, and one failed the settling script after it wrote. */
  private readonly retainMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    retainMs: number,
    private readonly now: () => number,
    /** How long the mark stands unless renewed: whole ms, as PX takes them. */
    readonly leaseMs: number,
  ) {
    this.channel = `${prefix}settled`;
    this.mark = `${prefix}w:${this.waiter}`;
    this.retainMs = Math.ceil(retainMs);
  }

  /** Opens a question of `owner`, due `timeoutMs` from now, waited for here (its mark set); returns its id. */
  async open(owner: string, timeoutMs: number, data: unknown): Promise<string> {
    const id = crypto.randomUUID();
    const at = this.now();
    const ttl = Math.ceil(timeoutMs + this.retainMs);
    await this.redis.eval(
      OPEN,
      3,
      this.question(id),
      this.ownerKey(owner),
      this.mark,
      id,
      owner,
      at,
      at + timeoutMs,
      JSON.stringify(data),
      ttl,
      this.waiter,
      this.leaseMs,
    );
    return id;
  }

  /** Renews this registry's alive mark. */
  async renew(): Promise<void> {
    await this.redis.set(this.mark, '1', 'PX', this.leaseMs);
  }

  /** Takes the mark down: the questions opened here are waited for no more. */
  async retire(): Promise<void> {
    await this.redis.del(this.mark);
  }

  /** Settles the question as `withdrawn`, or as `expired` if it is due; see SETTLE for what it returns. */
  async settle(id: string, kind: 'withdraw' | 'expire'): Promise<string> {
    try {
      return (await this.redis.eval(
        SETTLE,
        1,
        this.question(id),
        id,
        this.now(),
        kind,
        '',
        '',
        '',
        this.retainMs,
        this.channel,
      )) as string;
    } catch (error) {
      if (wrongType(error)) return 'unknown';
      throw error;
    }
  }

  /** Settles the question with `owner`'s answer, if it is theirs and still open. */
  async resolve(id: string, owner: string, answer: Answer): Promise<ResolveResult> {
    const settlement = settlementOf(answer);
    return (await this.redis.eval(
      SETTLE,
      1,
      this.question(id),
      id,
      this.now(),
      'answer',
      owner,
      JSON.stringify(settlement),
      settlement.reason,
      this.retainMs,
      this.channel,
    )) as ResolveResult;
  }

  /** The entry as stored, without settling it. */
  read(id: string): Promise<PendingEntry | undefined> {
    return readEntry(this.redis, this.question(id), id);
  }

  /** The entry, settled `expired` first if it is due. */
  async get(id: string): Promise<PendingEntry | undefined> {
    if ((await this.settle(id, 'expire')) === 'unknown') return undefined;
    return this.read(id);
  }

  /** `owner`'s questions, dropping from its index those Redis has forgotten. */
  async list(owner: string): Promise<PendingEntry[]> {
    const ids = await this.redis.zrange(this.ownerKey(owner), '0', '-1');
    const entries: PendingEntry[] = [];
    for (const id of ids) {
      const entry = await this.get(id);
      if (entry) entries.push(entry);
      else await this.redis.zrem(this.ownerKey(owner), id); // forgotten (its key expired)
    }
    return entries;
  }

  private question(id: string): string {
    return `${this.prefix}q:${id}`;
  }

  private ownerKey(owner: string): string {
    return `${this.prefix}owner:${owner}`;
  }
}

/** Something else wrote a question's key (not a hash): there is no question. Redis down still fails loudly. */
function wrongType(error: unknown): boolean {
  return error instanceof Error && /WRONGTYPE/.test(error.message);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return MALFORMED;
  }
}

/** A settlement as the settling script writes it: a known reason, and an answer only when answered. */
function isFinal(value: unknown): value is Final {
  if (typeof value !== 'object' || value === null) return false;
  const { reason, answer } = value as { reason?: unknown; answer?: unknown };
  if (reason === 'cancelled' || reason === 'expired' || reason === 'withdrawn') return true;
  if (reason !== 'answered' || typeof answer !== 'object' || answer === null) return false;
  const { action } = answer as { action?: unknown };
  return action === 'accept' || action === 'decline';
}

/** The entry, or undefined when there is none — or none a registry wrote (a malformed one fails closed). */
async function readEntry(redis: Redis, key: string, id: string): Promise<PendingEntry | undefined> {
  let hash: Record<string, string>;
  try {
    hash = await redis.hgetall(key);
  } catch (error) {
    if (wrongType(error)) return undefined;
    throw error;
  }
  if (hash.owner === undefined) return undefined;
  const data = parsed(hash.data ?? 'null');
  const settlement = hash.settlement === undefined ? undefined : parsed(hash.settlement);
  const openedAt = Number(hash.openedAt);
  const expiresAt = Number(hash.expiresAt);
  if (data === MALFORMED || settlement === MALFORMED || !Number.isFinite(openedAt) || !Number.isFinite(expiresAt))
    return undefined;
  if (settlement !== undefined && !isFinal(settlement)) return undefined;
  return { id, owner: hash.owner, openedAt, expiresAt, data, settlement };
}
