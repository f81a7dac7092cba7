/**
 * opsdesk, the Elicitkit reference MCP server: deploy_service, list_deployments, execute_sql,
 * sync_file, weekly_report and register_user on SQLite. Served by `elicitkit serve`.
 */
export { type AuditTrail, readAudit } from './audit.js';
export type { Database } from './db/open.js';
export { SEED_USERS, SERVICES, TICKETS } from './db/seed.js';
export { type Lang, langFrom } from './i18n.js';
export {
  createToken,
  ensureLocalOwner,
  findUser,
  hasTokens,
  type Identity,
  listUsers,
  projectsFor,
  userForToken,
} from './identity.js';
export { createOpsdesk, defaultDataDir, OPSDESK_INFO, type Opsdesk, type OpsdeskOptions, osUser } from './opsdesk.js';
export { type Access, type Permissions, permissionsFor } from './permissions.js';
export { KEPT_BY_RESET, type ResetReport, resetDemo } from './reset.js';
export { type HttpServing, type ServeHttpOptions, serveHttp } from './serve-http.js';
export { type StdioServing, serveStdioOpsdesk } from './serve-stdio.js';
export { openShop, type Shop } from './shop/open.js';
export { SHOP_SIZE, SHOP_TABLES } from './shop/seed.js';
