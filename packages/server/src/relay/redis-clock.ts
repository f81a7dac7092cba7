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
  private reading: Reading | undefined;
  private asking: Promise<Reading> | undefined;
  /** Counts the connections made: a reading taken on an earlier one is of another server's clock. */
  private connection = 0;

  constructor(
    private readonly redis: Redis,
    private readonly timeoutMs: number,
  ) {
    redis.on('close', this.lost);
    redis.on('ready', this.reconnected);
  }

  /**
   * The time on Redis's clock before which a command must run there to have run before `by`
   * (this replica's `performance.now()`). Reads Redis's clock first when the last reading is
   * older than a minute, or there is none — none since the connection was last made: after a
   * failover or a restart the server is another, its clock its own. Rejects when Redis does not
   * answer within `timeoutMs`.
   */
  async before(by: number): Promise<number> {
    let reading = this.reading;
    const age = reading ? performance.now() - reading.local : Number.POSITIVE_INFINITY;
    if (!reading || age > STALE_MS) reading = await this.read();
    else if (age > REFRESH_MS) this.read().catch(() => {});
    return Math.floor(reading.redis + (by - reading.local));
  }

  /**
   * Reads Redis's clock (one `TIME` at a time), bounded by `timeoutMs`. A reading answered for a
   * connection made before the current one is not kept, and is taken again.
   */
  read(): Promise<Reading> {
    if (this.asking) return this.asking;
    const connection = this.connection;
    const asking: Promise<Reading> = bounded(this.redis.time(), this.timeoutMs)
      .then(([seconds, micros]) => {
        if (this.asking === asking) this.asking = undefined;
        if (connection !== this.connection) return this.read();
        this.reading = {
          redis: Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000),
          local: performance.now(),
        };
        return this.reading;
      })
      .finally(() => {
        if (this.asking === asking) this.asking = undefined;
      });
    this.asking = asking;
    return asking;
  }

  /** Stops following the connection (the relay closed). */
  close(): void {
    this.redis.off('close', this.lost);
    this.redis.off('ready', this.reconnected);
  }

  /**
   * The connection is lost: the next server may be another, and what was read of the last one is
   * dropped — a deadline asked for meanwhile waits on a reading of the next one (its `TIME` queued
   * with the command it is for), never counted from the last one's clock.
   */
  private readonly lost = (): void => {
    this.connection++;
    this.reading = undefined;
    this.asking = undefined;
  };

  /** Connected (again): the clock of the server it reached is read at once. */
  private readonly reconnected = (): void => {
    this.lost();
    this.read().catch(() => {});
  };
}

/** Redis's time (epoch ms) when it ran `TIME`, and this replica's `performance.now()` when its reply came. */
interface Reading {
  redis: number;
  local: number;
}

/**
 * PUBLISH, only while Redis's clock is short of `ARGV[3]` (epoch ms); -1 past it, nothing published.
 * Scripts replicate their effects (Redis 5 and later), so reading `TIME` in one is allowed.
 */
export const PUBLISH_BEFORE = `local t = redis.call('TIME')
if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) >= tonumber(ARGV[3]) then return -1 end
return redis.call('PUBLISH', ARGV[1], ARGV[2])`;
