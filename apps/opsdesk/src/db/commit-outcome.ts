/**
 * A transaction whose COMMIT went out and whose answer was lost, and the database did not say in
 * time whether it committed: what it wrote may or may not be there.
 */
export class CommitOutcomeUnknownError extends Error {
  readonly code = 'COMMIT_OUTCOME_UNKNOWN';
  constructor(cause: unknown) {
    super(
      `the connection to the database was lost as a transaction committed, and the database did not say whether it did: ${(cause as Error)?.message ?? String(cause)}`,
      { cause },
    );
    this.name = 'CommitOutcomeUnknownError';
  }
}
