import type { PendingRegistry, RateLimiter } from '@elicitkit/client';
import type { ChatStore } from './chats';
import type { TurnMarks } from './turns';

/**
 * Where chats and questions are kept, shared by every replica when it is Redis: what `state()`
 * holds beside the chats this process runs. Its own module so the stores (`redis-state.ts`) and
 * `state.ts`, which picks one, import it and not each other.
 */
export interface Stores {
  chats: ChatStore;
  registry: PendingRegistry;
  /**
   * The question budget of the chat `key` (`chatKey`), counted per configured server: in this
   * process, or in Redis so that every instance streaming the chat's turns counts into one.
   */
  budget(key: string): RateLimiter;
  /** Which chats have a turn running: in this process, or in Redis so that every instance sees it. */
  turns: TurnMarks;
  close(): Promise<void>;
}

/** At most this many questions from one configured server reach a chat's person. */
export const QUESTION_BUDGET = { max: 10, perMs: 60_000 } as const;

/** Makes the stores: this process (the default) or Redis (`REDIS_URL`, `redisState`). */
export type StateFactory = () => Stores;
