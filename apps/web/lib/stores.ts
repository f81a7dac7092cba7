import type { PendingRegistry } from '@elicitkit/client';
import type { ChatStore } from './chats';

/**
 * Where chats and questions are kept, shared by every replica when it is Redis: what `state()`
 * holds beside the chats this process runs. Its own module so the stores (`redis-state.ts`) and
 * `state.ts`, which picks one, import it and not each other.
 */
export interface Stores {
  chats: ChatStore;
  registry: PendingRegistry;
  close(): Promise<void>;
}

/** Makes the stores: this process (the default) or Redis (`REDIS_URL`, `redisState`). */
export type StateFactory = () => Stores;
