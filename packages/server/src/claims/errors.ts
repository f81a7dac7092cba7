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
