/**
 * opsdesk, the Elicitkit reference MCP server: deploy_service, list_deployments, execute_sql,
 * sync_file, weekly_report and register_user, on SQLite (embedded) or Postgres (several hosts). `elicitkit serve` runs it; this is what
 * the CLI, the web app and tests use of it. `src/public-api.test.ts` pins the list.
 */

// Its data: the audit trail, and the demo back to its seed
export { type AuditTrail, readAudit } from './audit.js';
export type { Database } from './db/open.js';
// Its state alone, without its tools, shop or workspace: what a reader of the trail opens
export { openStore } from './db/open-store.js';
export type { Store } from './db/store.js';

// Acting as one of its people: over HTTP from a host that serves it in process, or as the account
// a `createOpsdesk` embedder's `identify` names
export { accountIdentityOf, issueToken } from './identity.js';

// Running it in this process, in the language a LANG value names
export { localeFrom } from './messages/index.js';
export { createOpsdesk, defaultDataDir, type Opsdesk, type OpsdeskOptions } from './opsdesk.js';
// Naming a service in a log line without its password
export { redactedUrl } from './redacted-url.js';
export { KEPT_BY_RESET, type ResetOptions, type ResetReport, resetDemo } from './reset.js';
// Serving it: HTTP (every revision on one endpoint, bearer tokens) or stdio (one user)
export { type HttpServing, type ServeHttpOptions, serveHttp } from './serve-http.js';
export { type ServeStdioOptions, type StdioServing, serveStdioOpsdesk } from './serve-stdio.js';
