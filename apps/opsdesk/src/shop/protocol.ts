import type { Limit } from './effect.js';

/** Messages between opsdesk and the shop's process (see worker-main.ts). Plain data, both ways. */
export type ShopCommand =
  | { op: 'inspect'; sql: string }
  | { op: 'read'; sql: string }
  /** `deadline` (epoch ms): past it the execution is not committed. */
  | { op: 'execute'; sql: string; limit: Limit; deadline: number }
  | { op: 'settings' };

export type ShopRequest = ShopCommand & { id: number };

export type ShopResponse =
  | { id: number; ok: true; value: unknown }
  /** The execution is within its limit and about to commit: it is no longer to be killed. */
  | { id: number; committing: true }
  | { id: number; ok: false; error: { name: string; message: string } };

/**
 * The signal the shop process's watchdog ends it with when a statement grows it past its memory
 * bound (see worker-main.ts): one that ends a Node process at once, even while its main thread is
 * inside SQLite, writes no core file, and that nothing else here sends — so the parent, seeing its
 * process end by it, knows why.
 */
export const MEMORY_SIGNAL = 'SIGUSR2';
