import { ElicitkitError } from '@elicitkit/form';

/**
 * The claim store could not reach its server (Redis or PostgreSQL), or it did not answer within
 * the store's `timeoutMs`. Fail closed: the claim was not taken, so the effect does not run; the
 * call ends with this message as an error result.
 *
 * @example
 * if (error instanceof ClaimStoreUnavailableError) retryLater(); // error.code === 'CLAIMS_UNAVAILABLE'
 */
export class ClaimStoreUnavailableError extends ElicitkitError {
  constructor(cause: unknown, store = 'Redis') {
    super(
      'CLAIMS_UNAVAILABLE',
      `The claim store (${store}) cannot be reached, so nothing was done: ${(cause as Error)?.message ?? String(cause)}`,
    );
    this.name = 'ClaimStoreUnavailableError';
  }
}

/**
 * The store's server does not keep its data — a Redis with no append-only file fsynced on every
 * write, a PostgreSQL with `fsync`, `synchronous_commit` or `full_page_writes` off — and the store
 * was not told it may be volatile: nothing is claimed, so nothing acts.
 *
 * @example
 * if (error instanceof ClaimStoreNotDurableError) console.error(error.message); // error.code === 'CLAIMS_NOT_DURABLE'
 */
export class ClaimStoreNotDurableError extends ElicitkitError {
  constructor(found: string, store: 'Redis' | 'PostgreSQL' = 'Redis') {
    super(
      'CLAIMS_NOT_DURABLE',
      store === 'Redis'
        ? `The claim store's Redis does not keep its data (${found}): a restart or a full memory would forget claims and let a replayed call act again, so nothing was done. Run Redis with appendonly yes, appendfsync always and maxmemory-policy noeviction (or no maxmemory), or create the store with { volatile: true } to accept claims that last only while Redis keeps them.`
        : `The claim store's PostgreSQL does not keep its data (${found}): a crash would forget claims it acknowledged and let a replayed call act again, so nothing was done. Run PostgreSQL with fsync, synchronous_commit and full_page_writes on (synchronous_commit may be local, remote_write or remote_apply), or create the store with { volatile: true } to accept claims that last only while PostgreSQL does not crash.`,
    );
    this.name = 'ClaimStoreNotDurableError';
  }
}
