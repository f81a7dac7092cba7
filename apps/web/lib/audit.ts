import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type AuditTrail, readAudit } from '@elicitkit/opsdesk';
import BetterSqlite3 from 'better-sqlite3';
import { config } from './config';

/** opsdesk's audit trail, read-only, beside the running server (SQLite WAL allows it). */
export async function auditTrail(limit = 500): Promise<AuditTrail | undefined> {
  const file = join(/*turbopackIgnore: true*/ config().dataDir, 'opsdesk.db');
  if (!existsSync(file)) return undefined;
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return await readAudit(db, limit);
  } finally {
    db.close();
  }
}
