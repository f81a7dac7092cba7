import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from './db/open-store.js';
import { run } from './db/query.js';
import { seedOperations } from './db/seed.js';
import { redactedUrl } from './redacted-url.js';
import { openShop } from './shop/open.js';
import { openWorkspace, SEED_FILE } from './sync/workspace.js';

/** What a demo reset put back, and what it kept. */
export interface ResetReport {
  shop: string;
  workspace: { local: string; remote: string };
  /** Kept as they were: who may log in and what happened. */
  kept: readonly string[];
}

/**
 * What a demo reset keeps, in words a confirmation prompt can show.
 *
 * @example
 * console.error(`kept: ${KEPT_BY_RESET.join(', ')}`);
 */
export const KEPT_BY_RESET = [
  'users and their permissions',
  'bearer tokens',
  'pending registrations',
  'the claims of calls that acted (a replay still acts once)',
  'the audit trail',
];

/**
 * Puts the demo back to its seed after destructive runs: the shop database, services, release
 * tickets, the deployment history, the sync workspace (both sides) and its sync state. Users,
 * tokens, pending registrations, claims and the audit trail are kept, so HTTP clients keep working and the
 * trail still shows what happened. Run it with no opsdesk serving this directory (or database).
 *
 * @example
 * await resetDemo('/home/me/.local/share/elicitkit'); // then `elicitkit serve` starts on the seed again
 */
export async function resetDemo(dataDir: string, options: ResetOptions = {}): Promise<ResetReport> {
  const now = options.now ?? (() => new Date());
  const store = await openStore(dataDir, options.database, now);
  try {
    await store.transaction(
      (function* () {
        for (const table of ['deployments', 'release_tickets', 'services', 'sync_state'])
          yield* run(`DELETE FROM ${table}`);
        yield* seedOperations();
      })(),
    );
    rmSync(join(dataDir, 'workspace'), { recursive: true, force: true });
    const { workspace, seeded } = openWorkspace(dataDir);
    if (seeded)
      await store.run(
        run(
          'INSERT INTO sync_state (path, base_hash, synced_at) VALUES (?, ?, ?)',
          SEED_FILE,
          seeded,
          now().toISOString(),
        ),
      );
    if (store.dialect === 'postgres' && options.database) {
      // Dropped whole (what execute_sql added too), then made and seeded again as at first start.
      await store.pool.query('DROP SCHEMA IF EXISTS shop CASCADE');
      const { startPostgresShop } = await import('./shop/postgres-shop.js');
      await (await startPostgresShop(store, options.database)).close();
      return { shop: `${redactedUrl(options.database)} (schema shop)`, workspace, kept: KEPT_BY_RESET };
    }
    const shop = openShop(dataDir);
    shop.reset();
    shop.close();
    return { shop: shop.file, workspace, kept: KEPT_BY_RESET };
  } finally {
    await store.close();
  }
}

/** Where the demo to reset keeps its state. */
export interface ResetOptions {
  /** opsdesk's Postgres database, when it runs on one (`serve --database`). */
  database?: string;
  now?: () => Date;
}
