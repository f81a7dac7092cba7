/**
 * @elicitkit/server/stores — what a store of your own implements: a `ClaimStore` (the record that
 * makes `commit` act once; the memory, SQLite, Redis and Postgres ones implement it), a
 * `SessionDirectory` (how replicas find the one holding a 2025 session; the Redis relay is one),
 * and the in-memory `EventStore` that makes 2025 streams resumable (`createHttpHandler({ eventStore })`).
 */
export { createMemoryClaimStore } from './claims/memory.js';
export type { AsyncAtomicResult, AtomicResult, Claim, ClaimOptions, ClaimResult, ClaimStore } from './claims/types.js';
export { createMemoryEventStore, type MemoryEventStoreOptions } from './http/event-store.js';
export type { SessionDirectory } from './http/session-directory.js';
