/**
 * @elicitkit/server/postgres — a claim store in PostgreSQL (`pg`, an optional peer), behind its
 * own subpath so the main entry stays free of it: claims shared by replicas on several hosts, and
 * one-transaction commits (`{ atomic: true }`) whose async effect writes through the transaction.
 */
export {
  ClaimStoreNotDurableError,
  ClaimStoreUnavailableError,
  createPostgresClaimStore,
  type PostgresClaimStoreOptions,
  type PostgresClient,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  type TransactionFate,
  transactionFate,
} from './claims/postgres.js';
