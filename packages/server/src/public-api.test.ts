import { describe, expect, it } from 'vitest';
import { publicApi } from '../../client/test/public-api.js';

const entry = (file: string) => new URL(file, import.meta.url);

// The public surface, on purpose: adding or removing a name here is an API change.
describe('the public API of @elicitkit/server', () => {
  const VALUES = [
    'ElicitkitUsageError',
    'FormLintError',
    'LIMIT_REACHED',
    'LOCALES',
    'QUESTION_UNSTABLE',
    'STATUSES',
    'createElicitkit',
    'createHttpHandler',
    'createMemoryClaimStore',
    'defineTool',
    'done',
    'invalid',
    'match',
    'outcomeSchema',
    'pending',
    'rejected',
  ];
  const TYPES = [
    'AnyTool',
    'AskOptions',
    'AttemptEffect',
    'AuditEvent',
    'AuditSink',
    'ClaimStore',
    'CommitOptions',
    'Effect',
    'ElicitingTool',
    'Elicitkit',
    'ElicitkitOptions',
    'HttpHandler',
    'HttpHandlerOptions',
    'Locale',
    'LocaleTables',
    'Outcome',
    'Status',
    'ToolContext',
    'ToolSpec',
  ];

  it('names at most 35 things: the rest is reached from them or lives behind a subpath', () => {
    expect(VALUES.length + TYPES.length).toBeLessThanOrEqual(35);
  });

  it('ships exactly these values', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual(VALUES);
  });

  it('declares exactly these values and types, each documented (values with an @example)', () => {
    expect(publicApi(entry('./index.ts'))).toEqual({ values: VALUES, types: TYPES, undocumented: [] });
  });
});

describe('the public API of @elicitkit/server/sqlite', () => {
  it('ships exactly the SQLite claim store, and the types it takes, each documented', async () => {
    expect(Object.keys(await import('./sqlite.js')).sort()).toEqual(['createSqliteClaimStore']);
    expect(publicApi(entry('./sqlite.ts'))).toEqual({
      values: ['createSqliteClaimStore'],
      types: ['SqliteClaimStoreOptions', 'SqliteDatabase', 'SqliteStatement'],
      undocumented: [],
    });
  });
});

describe('the public API of @elicitkit/server/postgres', () => {
  it('ships exactly the Postgres claim store, its errors, how a lost COMMIT ended, and the types they take, each documented', async () => {
    expect(Object.keys(await import('./postgres.js')).sort()).toEqual([
      'ClaimStoreNotDurableError',
      'ClaimStoreUnavailableError',
      'createPostgresClaimStore',
      'transactionFate',
    ]);
    expect(publicApi(entry('./postgres.ts'))).toEqual({
      values: [
        'ClaimStoreNotDurableError',
        'ClaimStoreUnavailableError',
        'createPostgresClaimStore',
        'transactionFate',
      ],
      types: [
        'PostgresClaimStoreOptions',
        'PostgresClient',
        'PostgresPool',
        'PostgresPoolClient',
        'PostgresQueryResult',
        'TransactionFate',
      ],
      undocumented: [],
    });
  });
});

describe('the public API of @elicitkit/server/node', () => {
  it('ships exactly the Node listener for createHttpHandler, documented', async () => {
    expect(Object.keys(await import('./node.js')).sort()).toEqual(['toNodeListener']);
    expect(publicApi(entry('./node.ts'))).toEqual({
      values: ['toNodeListener'],
      types: ['NodeListener'],
      undocumented: [],
    });
  });
});

describe('the public API of @elicitkit/server/stores', () => {
  it('ships what a claim store or session directory of your own implements, each documented', async () => {
    expect(Object.keys(await import('./stores.js')).sort()).toEqual([
      'createMemoryClaimStore',
      'createMemoryEventStore',
    ]);
    expect(publicApi(entry('./stores.ts'))).toEqual({
      values: ['createMemoryClaimStore', 'createMemoryEventStore'],
      types: [
        'AsyncAtomicResult',
        'AtomicResult',
        'Claim',
        'ClaimOptions',
        'ClaimResult',
        'ClaimStore',
        'MemoryEventStoreOptions',
        'SessionDirectory',
      ],
      undocumented: [],
    });
  });
});

describe('the public API of @elicitkit/server/redis', () => {
  it('ships exactly what replicas share through Redis, each documented', async () => {
    expect(Object.keys(await import('./redis.js')).sort()).toEqual([
      'ClaimStoreNotDurableError',
      'ClaimStoreUnavailableError',
      'RelayFailedError',
      'createRedisClaimStore',
      'createRedisEventBus',
      'createRedisEventStore',
      'createRedisRelay',
    ]);
    expect(publicApi(entry('./redis.ts'))).toEqual({
      values: [
        'ClaimStoreNotDurableError',
        'ClaimStoreUnavailableError',
        'RelayFailedError',
        'createRedisClaimStore',
        'createRedisEventBus',
        'createRedisEventStore',
        'createRedisRelay',
      ],
      types: [
        'RedisClaimStoreOptions',
        'RedisEventBus',
        'RedisEventBusDrops',
        'RedisEventBusOptions',
        'RedisEventStoreOptions',
        'RedisRelay',
        'RedisRelayOptions',
      ],
      undocumented: [],
    });
  });
});
