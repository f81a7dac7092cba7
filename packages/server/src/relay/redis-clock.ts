import type { Redis } from 'ioredis';
import { bounded } from '../claims/bounded.js';

/** Past this age a reading of Redis's clock is taken again before it is used. */
const STALE_MS = 60_000;
/** Past this age a reading is still used, and a new one asked for beside it. */
const REFRESH_MS = 10_000;

/**
 * Redis's own clock, as this replica last read it (`TIME`), and how to turn a moment of this
 * replica's monotonic clock (`performance.now()`) into one of Redis's: so a command can carry a
 * deadline that Redis itself checks when it runs it, whatever the clocks of the replicas say.
 *
 * A reading is Redis's time when it ran `TIME`, paired with the moment its reply was taken here —
 * never earlier than when Redis ran it. A moment `by` here is then at least as late, in Redis's
 * clock, as `redis + (by - local)`: a command that Redis runs before that reading of its clock
 * has run before `by` here (only the rates of the two clocks are assumed alike, over a minute).
 */
export class RedisClock {
  private reading: { redis: number; local: number } | undefined;
  private asking: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly timeoutMs: number,
  ) {}

  /**
   * The time on Redis's clock before which a command must run there to have run before `by`
   * (this replica's `performance.now()`). Reads Redis's clock first when the last reading is
   * older than a minute (or there is none): rejects when Redis does not answer within `timeoutMs`.
   */
  async before(by: number): Promise<number> {
    const age = this.reading ? performance.now() - this.reading.local : Number.POSITIVE_INFINITY;
    if (age > STALE_MS) await this.read();
    else if (age > REFRESH_MS) this.read().catch(() => {});
    const { redis, local } = this.reading as { redis: number; local: number };
    return Math.floor(redis + (by - local));
  }

  /** Reads Redis's clock (one `TIME` at a time), bounded by `timeoutMs`. */
  read(): Promise<void> {
    this.asking ??= bounded(this.redis.time(), this.timeoutMs)
      .then(([seconds, micros]) => {
        this.reading = {
          redis: Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000),
          local: performance.now(),
        };
      })
      .finally(() => {
        this.asking = undefined;
      });
    return this.asking;
  }
}

/**
 * PUBLISH, only while Redis's clock is short of `ARGV[3]` (epoch ms); -1 past it, nothing published.
 * Scripts replicate their effects (Redis 5 and later), so reading `TIME` in one is allowed.
 */
export const PUBLISH_BEFORE = `local t = redis.call('TIME')
if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) >= tonumber(ARGV[3]) then return -1 end
return redis.call('PUBLISH', ARGV[1], ARGV[2])`;
