import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type AuditTrail, readAudit } from '@elicitkit/opsdesk';
import BetterSqlite3 from 'better-sqlite3';
import { config } from './config';
import type { DemoUser } from './opsdesk';
import { cookieId, state } from './state';

/** What a viewer of the audit page is shown. */
export type Audit =
  /** No open chat named by the request's cookie: nobody to show a trail to. */
  | { viewer: undefined }
  /**
   * The trail the chat's user may see: everyone's for an opsdesk owner, else only the records of
   * their own calls. `trail` is undefined when opsdesk has no database yet (it has not started:
   * nothing was recorded), and then `everyone` is false, whoever the user is.
   */
  | { viewer: DemoUser; everyone: boolean; trail: AuditTrail | undefined };

/**
 * The audit trail for the browser behind `request`, as the person its chat acts as may see it.
 * The trail holds every question opsdesk asked anyone and what each person answered (personal
 * data), so it is bound to the identity the chat acts as (`ChatRecord.user`, found by the chat
 * cookie, never by anything the request says of itself): an opsdesk owner (role `owner`, the
 * local owner) sees every record, anyone else (alice, bob) the records of their own calls only.
 * Without a chat — no cookie, a cookie another site's page cannot send (SameSite=Strict), a chat
 * that ended — nothing.
 *
 * @example
 * const audit = await auditFor(request); // { viewer: 'bob', everyone: false, trail: … }
 */
export async function auditFor(request: Request, limit = 500): Promise<Audit> {
  const id = cookieId(request);
  const chat = id === undefined ? undefined : await state().chats.touch(id);
  if (!chat) return { viewer: undefined };
  const db = openAudit();
  if (!db) return { viewer: chat.user, everyone: false, trail: undefined };
  try {
    // The account that holds the name now: the one the chat's calls run as.
    const account = db.prepare('SELECT id, role FROM users WHERE username = ?').get(chat.user) as
      | { id: number; role: string }
      | undefined;
    if (account?.role === 'owner') return { viewer: chat.user, everyone: true, trail: await readAudit(db, limit) };
    return { viewer: chat.user, everyone: false, trail: account ? ownTrail(db, account.id, limit) : EMPTY };
  } finally {
    db.close();
  }
}

/**
 * Every record of opsdesk's audit trail, whoever made it: what an owner sees (`auditFor`), and
 * what tests read. Never hand it to a page without `auditFor`'s check.
 */
export async function auditTrail(limit = 500): Promise<AuditTrail | undefined> {
  const db = openAudit();
  if (!db) return undefined;
  try {
    return await readAudit(db, limit);
  } finally {
    db.close();
  }
}

/** opsdesk's database, read-only, beside the running server (SQLite WAL allows it); undefined before it exists. */
function openAudit(): BetterSqlite3.Database | undefined {
  const file = join(/*turbopackIgnore: true*/ config().dataDir, 'opsdesk.db');
  if (!existsSync(file)) return undefined;
  return new BetterSqlite3(file, { readonly: true, fileMustExist: true });
}

/** Each record kind's table in opsdesk's database (docs/opsdesk.md; `readAudit` reads the same). */
const TABLES = {
  requests: 'audit_requests',
  responses: 'audit_responses',
  validations: 'audit_validations',
  violations: 'audit_violations',
  refusals: 'audit_refusals',
} as const satisfies Record<keyof AuditTrail, string>;

const EMPTY: AuditTrail = { requests: [], responses: [], validations: [], violations: [], refusals: [] };

/**
 * The last `limit` records of each kind made by account `accountId`'s own calls, oldest first,
 * decoded as `readAudit` decodes them. By the account (each record's `user_id`), not the name: a
 * name is freed when its account is removed and may be taken by someone else, who must not see
 * the earlier person's records.
 */
function ownTrail(db: BetterSqlite3.Database, accountId: number, limit: number): AuditTrail {
  const rows = (table: string) =>
    (
      db.prepare(`SELECT * FROM ${table} WHERE user_id = ? ORDER BY id DESC LIMIT ?`).all(accountId, limit) as Record<
        string,
        unknown
      >[]
    )
      .reverse()
      .map(decode);
  return {
    requests: rows(TABLES.requests),
    responses: rows(TABLES.responses),
    validations: rows(TABLES.validations),
    violations: rows(TABLES.violations),
    refusals: rows(TABLES.refusals),
  };
}

/** A stored row as `readAudit` returns it: the time as ISO text, JSON columns parsed, flags as booleans. */
function decode(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row, at: new Date(row.at as number).toISOString() };
  for (const key of ['fields', 'content', 'issues', 'adaptation'])
    if (typeof row[key] === 'string') out[key] = JSON.parse(row[key] as string);
  if ('delivered' in row) out.delivered = row.delivered === 1;
  if ('ok' in row) out.ok = row.ok === 1;
  return out;
}
