import type { Claim, ClaimStore } from './types.js';

interface Entry {
  claim: Claim;
  expiresAt: number;
}

/**
 * The default claim store: a map in this process. Right for one process; its claims do not
 * survive a restart (then a replayed final round acts again), and other processes do not see them.
 *
 * @example
 * const kit = createElicitkit({ claims: createMemoryClaimStore() });
 */
export function createMemoryClaimStore(options: { now?: () => number } = {}): ClaimStore {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const live = (id: string) => {
    const entry = entries.get(id);
    if (entry && entry.expiresAt <= now()) {
      entries.delete(id);
      return undefined;
    }
    return entry;
  };
  const held = (id: string, owner: string) => {
    const entry = live(id);
    return entry?.claim.state === 'running' && entry.claim.owner === owner ? entry : undefined;
  };
  return {
    async claim(id, owner, { leaseMs, ttlMs }) {
      const existing = live(id);
      if (existing) return { ...existing.claim };
      entries.set(id, { claim: { state: 'running', owner, leaseUntil: now() + leaseMs }, expiresAt: now() + ttlMs });
      return { state: 'claimed' };
    },
    async renew(id, owner, leaseMs) {
      const entry = held(id, owner);
      if (!entry) return false;
      entry.claim = { state: 'running', owner, leaseUntil: now() + leaseMs };
      return true;
    },
    async complete(id, owner, result) {
      const entry = held(id, owner);
      if (!entry) return false;
      entry.claim = { state: 'done', result };
      return true;
    },
    async release(id, owner) {
      if (!held(id, owner)) return false;
      entries.delete(id);
      return true;
    },
    async read(id) {
      const entry = live(id);
      return entry ? { ...entry.claim } : undefined;
    },
    async sweep() {
      let removed = 0;
      const at = now();
      for (const [id, entry] of entries) {
        if (entry.expiresAt <= at) {
          entries.delete(id);
          removed++;
        }
      }
      return removed;
    },
  };
}
