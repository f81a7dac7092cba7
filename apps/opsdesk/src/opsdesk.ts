import { randomBytes } from 'node:crypto';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { Locale } from '@elicitkit/server';
import { type AnyTool, type ClaimStore, createElicitkit, type Elicitkit } from '@elicitkit/server';
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { auditBeforeClaims, flushAudit, recordCallEnds, sqliteAudit } from './audit.js';
import { closeEach } from './close-each.js';
import type { Deps } from './context.js';
import { openStore } from './db/open-store.js';
import { run } from './db/query.js';
import type { OpsdeskStore } from './db/store.js';
import { forgetHeldTokens } from './identity.js';
import { type ShopClient, startShop } from './shop/client.js';
import { openShop } from './shop/open.js';
import { openWorkspace } from './sync/workspace.js';
import { deployTool, listDeploymentsTool } from './tools/deploy.js';
import { executeSqlTool } from './tools/execute-sql.js';
import { registerUserTool } from './tools/register-user.js';
import { syncFileTool } from './tools/sync-file.js';
import { weeklyReportTool } from './tools/weekly-report.js';
import { createPasswordLinks, linkSecret, type PasswordLinks, storedSecret } from './web/password-links.js';

const OPSDESK_INFO = { name: 'opsdesk', title: 'opsdesk', version: '0.1.0' } as const;
/** How long closing waits for tool calls still running. */
const SETTLE_MS = 5_000;

/** What opsdesk runs on: its data directory, its language, and who is calling. */
export interface OpsdeskOptions {
  dataDir: string;
  /**
   * A Postgres URL (`postgres://user@host:port/db`) to keep opsdesk's own state in instead of
   * `opsdesk.db` in the data directory: replicas on several hosts share it. Default: SQLite.
   */
  database?: string;
  locale: Locale;
  /**
   * Who is calling, per request: the account's identity (`accountIdentityOf`: its never-reused id,
   * never its name), the stdio user's account or the bearer token's over HTTP. Anything else
   * (a name) is no account: tools refuse the call.
   */
  identify: (ctx: ServerContext) => string | undefined;
  /** Per-question timeout (default 10 minutes). */
  timeoutMs?: number;
  /** How long one execute_sql statement may run (default 10 s); past it, its process is killed. */
  sqlTimeoutMs?: number;
  /** URL mode: how long to wait after consent for the page to be finished (default 2 minutes). */
  urlWaitMs?: number;
  /**
   * The requestState key, for replicas that do not share this data directory (≥ 32 characters).
   * Default: the key stored in the data directory, shared by every process on it.
   */
  secret?: string;
  /**
   * Where each call's side effect is claimed once. Default: SQLite in the data directory (claim and
   * effect in one transaction). Replicas on several hosts pass a shared store (Redis): at most once.
   */
  claims?: ClaimStore;
  now?: () => Date;
}

/** opsdesk opened on a data directory, ready to serve: its tools, its kit and its databases. */
export interface Opsdesk {
  /** opsdesk's own state: `opsdesk.db` in the data directory, or the Postgres database given. */
  store: OpsdeskStore;
  shop: ShopClient;
  links: PasswordLinks;
  tools: readonly AnyTool[];
  kit: Elicitkit;
  /** The state secret (given, or the data directory's): replicas' relay frames are sealed with a key derived from it. */
  secret: string;
  /** A fresh MCP server over the tools (one per request or connection). */
  createServer(): McpServer;
  /** Waits (up to 5 s) for the tool calls still running — cut-short ones end at once — then closes the database. */
  close(): Promise<void>;
}

const INSTRUCTIONS =
  'opsdesk is a reference operations server. Tools ask the user directly (elicitation) for missing or sensitive decisions: do not guess environments, tickets, dates or table names, and never ask the user for passwords in chat.';

/**
 * Opens the data directory (seeding it on first start) and builds the tools. Serve it with a
 * transport of your own through `createServer()`, one server per connection or request.
 *
 * @example
 * let caller: string | undefined;
 * const opsdesk = await createOpsdesk({ dataDir, locale: 'en', identify: () => caller });
 * caller = await accountIdentityOf(opsdesk.store, 'alice');
 * await opsdesk.createServer().connect(transport);
 */
export async function createOpsdesk(options: OpsdeskOptions): Promise<Opsdesk> {
  const now = options.now ?? (() => new Date());
  const store = await openStore(options.dataDir, options.database, now);
  try {
    return await openOn(store, options, now);
  } catch (error) {
    await store.close();
    throw error;
  }
}

async function openOn(store: OpsdeskStore, options: OpsdeskOptions, now: () => Date): Promise<Opsdesk> {
  const shopOptions = options.sqlTimeoutMs ? { timeoutMs: options.sqlTimeoutMs } : {};
  let shop: ShopClient;
  if (store.dialect === 'postgres' && options.database) {
    // The shop's schema in the same database, reached only through a role of its own.
    const { startPostgresShop } = await import('./shop/postgres-shop.js');
    shop = await startPostgresShop(store, options.database, shopOptions);
  } else {
    openShop(options.dataDir).close(); // created and seeded now, so a broken data directory fails at start
    shop = startShop(options.dataDir, shopOptions);
  }
  // Opened now: a step below that fails (the workspace's folder a file, the database gone) closes
  // it again — its connections would otherwise hold the process that reports the failure.
  try {
    const { workspace, seeded } = openWorkspace(options.dataDir);
    if (seeded) {
      // Only where the database has no state for it yet: on Postgres the state is every host's, and
      // a host starting on a fresh data directory (or `elicitkit audit` reading the trail from one)
      // that set it to its own seed would make a side equal to the seed read as unchanged — and the
      // other copied over it unasked at the next sync.
      await store.run(
        run(
          'INSERT INTO sync_state (path, base_hash, synced_at) VALUES (?, ?, ?) ON CONFLICT(path) DO NOTHING',
          'notes/plan.md',
          seeded,
          now().toISOString(),
        ),
      );
    }
    const links = createPasswordLinks(store, await store.run(linkSecret()), options.locale, () => now().getTime());
    const deps: Deps = { store, shop, locale: options.locale, workspace, links, now };
    const tools = [
      deployTool(deps),
      listDeploymentsTool(deps),
      executeSqlTool(deps),
      syncFileTool(deps),
      weeklyReportTool(deps),
      registerUserTool(deps),
    ].map(recordCallEnds(store));
    // The requestState key lives with the data, so every opsdesk process on it verifies the others' state.
    const secret =
      options.secret ?? (await store.run(storedSecret('state_secret', () => randomBytes(32).toString('hex'))));
    const audit =
      store.dialect === 'sqlite' ? sqliteAudit(store.db) : (await import('./audit-postgres.js')).postgresAudit(store);
    const kit = createElicitkit({
      secret,
      locale: options.locale,
      identify: options.identify,
      audit,
      // Claims live beside the data the effects write: a replayed final round acts once, across
      // restarts and across every opsdesk process on this data directory, and a SQLite effect
      // commits in one transaction with its claim. A shared store given instead (Redis) cannot hold
      // the effect in its transaction: the commit is then claim, effect, result — at most once.
      claims: auditBeforeClaims(options.claims ?? store.claims, store),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.urlWaitMs ? { urlWaitMs: options.urlWaitMs } : {}),
    });
    return {
      store,
      shop,
      links,
      tools,
      kit,
      secret,
      createServer: () => kit.createServer(OPSDESK_INFO, tools, { instructions: INSTRUCTIONS }),
      async close() {
        // A call whose client went away still writes its last audit record: let it (for a while), then close.
        await Promise.race([kit.settled(), new Promise((resolve) => setTimeout(resolve, SETTLE_MS).unref())]);
        // Every step, whichever fails (closeEach); the audit's records before the store closes.
        await closeEach([
          () => shop.close(),
          () => forgetHeldTokens(store),
          // An answer's records wait for the end of the turn at the latest (sqliteAudit): not past the close.
          () => flushAudit(store),
          () => store.close(),
        ]);
      },
    };
  } catch (error) {
    await shop.close();
    throw error;
  }
}

/**
 * `$XDG_DATA_HOME/elicitkit`, else `~/.local/share/elicitkit` (`docs/opsdesk.md`).
 *
 * @example
 * defaultDataDir({ XDG_DATA_HOME: '/data' }) // '/data/elicitkit'
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'elicitkit');
}

/** The user running this process: who a stdio opsdesk serves by default. */
export function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'local';
  }
}
