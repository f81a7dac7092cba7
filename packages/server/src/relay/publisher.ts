import type { Redis } from 'ioredis';
import { bounded, STORE_TIMEOUT_MS, StoreTimeoutError } from '../claims/bounded.js';
import type { Link } from './direct.js';
import { checkFrame, type Frame, type FrameKeys, MAX_BATCH, sealFrames } from './frames.js';
import { PUBLISH_BEFORE } from './redis-clock.js';

/** The name `PUBLISH_BEFORE` is defined under on the relay's Redis client (`defineCommand`). */
const PUBLISH_BEFORE_COMMAND = 'elicitkitPublishBefore';
/** A client (or pipeline) with `PUBLISH_BEFORE` defined on it. */
type PublishesBefore = Record<
  typeof PUBLISH_BEFORE_COMMAND,
  (channel: string, message: string, before: number) => Promise<unknown>
>;

/** About how many bytes of frames one batched message holds. */
const BATCH_BYTES = 256 * 1024;

/** About how many bytes a frame takes in a message: its body or chunk, and room for the rest. */
function weight(frame: Frame): number {
  const carried = frame.t === 'data' ? frame.d : frame.t === 'head' || frame.t === 'request' ? frame.body : undefined;
  return (carried?.length ?? 0) + 512;
}

/** How the replica a frame goes to takes its messages (it said so: its directory entry, or its request). */
export interface Takes {
  /** Several frames in one message. */
  batch?: boolean;
  /** Messages authenticated by their encryption alone, unsigned (`frames.ts`). */
  aead?: boolean;
  /** Sent on this direct connection to it (`direct.ts`) instead of its Redis channel. */
  via?: Link;
  /**
   * Given up on at `local` (this replica's `performance.now()`), and published only if Redis runs
   * the PUBLISH before `redis` on its own clock (`RedisClock.before`): a PUBLISH this replica gave
   * up on, held in a client's queue or on a stalled connection, is never delivered later.
   */
  before?: { local: number; redis: number };
}

/** One message to PUBLISH: its channel, its sealed text, its frames, and its deadline on Redis's clock. */
interface Message {
  channel: string;
  message: string;
  frames: Pending[];
  before?: number;
}

interface Pending {
  to: string;
  frame: Frame;
  batch: boolean;
  aead: boolean;
  via: Link | undefined;
  before: number | undefined;
  resolve: (listeners: number) => void;
  reject: (error: unknown) => void;
}

/**
 * Frames this replica sends, sealed and PUBLISHed on one connection, those of one turn of the
 * event loop together. A relayed answer's replies come in a burst — the answer's own response, the
 * tool's result, the end of the call's stream — and each command sent alone is a write of its own
 * and a wake-up of Redis, which on a busy host costs more than the frame. Queued until the work
 * that made them (this turn's microtasks) is done, they go as one pipeline: one write, in order.
 * The frames of one burst for a replica that takes them so (`batch`) are also sealed as one
 * message: one seal here, one open there. A lone frame goes as a plain PUBLISH, only deferred to
 * the end of the turn. To a replica that reads them (`aead`), messages go unsigned: the
 * encryption's tag authenticates them, and the signature would be a second check of the same.
 * Frames given a direct connection to their replica (`via`) are written on it instead, grouped
 * and sealed the same way.
 *
 * Each frame is checked when it is given (a frame the receiver would refuse is a rejection at
 * once) and gets its own outcome: how many listened to its message, or its error — a
 * `StoreTimeoutError` when Redis has not answered within `timeoutMs` (or by `before.local`). A
 * message holding a frame with a deadline (`before`) goes as a script that publishes it only
 * before that deadline on Redis's clock.
 */
export class Publisher {
  private queue: Pending[] = [];

  constructor(
    private readonly redis: Redis,
    private readonly keys: FrameKeys,
    private readonly replica: string,
    private readonly channelOf: (replica: string) => string,
    private readonly timeoutMs: number = STORE_TIMEOUT_MS,
  ) {
    // The script goes by its SHA-1 (EVALSHA), its text only the first time on a connection and
    // again on NOSCRIPT (Redis restarted, failed over, SCRIPT FLUSH): ioredis's own scripts.
    redis.defineCommand(PUBLISH_BEFORE_COMMAND, { numberOfKeys: 0, lua: PUBLISH_BEFORE });
  }

  publish(to: string, frame: Frame, takes: Takes = {}): Promise<number> {
    const ms = takes.before ? Math.max(1, Math.ceil(takes.before.local - performance.now())) : this.timeoutMs;
    return bounded(this.queued(to, frame, takes), ms);
  }

  private queued(to: string, frame: Frame, takes: Takes): Promise<number> {
    return new Promise((resolve, reject) => {
      checkFrame(frame);
      const pending = {
        to,
        frame,
        batch: takes.batch === true,
        aead: takes.aead === true,
        via: takes.via,
        before: takes.before?.redis,
        resolve,
        reject,
      };
      // The first of a turn schedules the flush: after this turn's microtasks, before any I/O.
      if (this.queue.push(pending) === 1) process.nextTick(this.flush);
    });
  }

  private readonly flush = (): void => {
    const queued = this.queue;
    this.queue = [];
    const messages: Message[] = [];
    // Frames for one replica that takes batches, in order, in messages of at most MAX_BATCH frames
    // and about BATCH_BYTES (a large chunk goes alone: Redis drops a subscriber whose output
    // buffer grows past its limit, 32 MB by default).
    // A group per route: a replica's channel, or a direct connection (which reaches one replica).
    const open = new Map<string | Link, { to: string; frames: Pending[]; bytes: number }>();
    const close = (route: string | Link) => {
      const group = open.get(route);
      if (!group) return;
      open.delete(route);
      this.seal(messages, group.to, group.frames);
    };
    for (const p of queued) {
      if (!p.batch) {
        this.seal(messages, p.to, [p]);
        continue;
      }
      const route = p.via ?? p.to;
      const bytes = weight(p.frame);
      const now = open.get(route);
      if (now && now.bytes + bytes > BATCH_BYTES) close(route);
      const group = open.get(route) ?? { to: p.to, frames: [], bytes: 0 };
      group.frames.push(p);
      group.bytes += bytes;
      open.set(route, group);
      if (group.frames.length === MAX_BATCH) close(route);
    }
    for (const route of [...open.keys()]) close(route);
    if (messages.length === 0) return;
    const settle = (m: Message, error: unknown, listeners: unknown) => {
      // Redis ran it past its deadline, and published nothing.
      const late = !error && Number(listeners) < 0 ? new StoreTimeoutError(this.timeoutMs) : undefined;
      for (const p of m.frames) {
        if (error || late) p.reject(error ?? late);
        else p.resolve(Number(listeners));
      }
    };
    if (messages.length === 1) {
      const [m] = messages as [Message];
      (m.before === undefined
        ? this.redis.publish(m.channel, m.message)
        : (this.redis as unknown as PublishesBefore)[PUBLISH_BEFORE_COMMAND](m.channel, m.message, m.before)
      ).then(
        (listeners) => settle(m, undefined, listeners),
        (error: unknown) => settle(m, error, 0),
      );
      return;
    }
    const pipeline = this.redis.pipeline();
    for (const m of messages)
      if (m.before === undefined) pipeline.publish(m.channel, m.message);
      else (pipeline as unknown as PublishesBefore)[PUBLISH_BEFORE_COMMAND](m.channel, m.message, m.before);
    pipeline.exec().then(
      (replies) =>
        messages.forEach((m, i) => {
          const [error, listeners] = replies?.[i] ?? [new Error('no reply to PUBLISH'), 0];
          settle(m, error, listeners);
        }),
      (error: unknown) => {
        for (const m of messages) settle(m, error, 0);
      },
    );
  };

  private seal(messages: Message[], to: string, frames: Pending[]) {
    try {
      const message = sealFrames(
        this.keys,
        this.replica,
        to,
        frames.map((p) => p.frame),
        Date.now(),
        frames.every((p) => p.aead),
      );
      const via = frames[0]?.via;
      if (via) {
        // On a direct connection: written now, in order with the frames before it; nobody reached
        // when the connection is gone. Refused while it is up, the message is longer than it
        // carries: an error, not a silent loss.
        const written = via.send(message);
        if (!written && via.reaches(to))
          throw new RangeError('a relay message longer than a direct connection carries');
        for (const p of frames) p.resolve(written ? 1 : 0);
      } else {
        // The earliest deadline of its frames, if any has one.
        let before: number | undefined;
        for (const p of frames) if (p.before !== undefined) before = Math.min(before ?? p.before, p.before);
        messages.push({ channel: this.channelOf(to), message, frames, ...(before === undefined ? {} : { before }) });
      }
    } catch (error) {
      for (const p of frames) p.reject(error);
    }
  }
}
