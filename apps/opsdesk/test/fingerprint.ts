import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';

/**
 * A hash of a database's schema and of every row of its tables (audit tables: schema only, since
 * asking a question writes the audit trail), plus the row count of each table.
 */
export function fingerprint(
  file: string,
  skipRowsOf: RegExp = /^audit_/,
): { hash: string; counts: Record<string, number> } {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const hash = createHash('sha256');
    const objects = db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name').all() as {
      type: string;
      name: string;
      sql: string | null;
    }[];
    hash.update(JSON.stringify(objects));
    const counts: Record<string, number> = {};
    for (const o of objects.filter((x) => x.type === 'table')) {
      const quoted = `"${o.name.replaceAll('"', '""')}"`;
      if (skipRowsOf.test(o.name)) continue;
      counts[o.name] = db.prepare(`SELECT COUNT(*) FROM ${quoted}`).pluck().get() as number;
      for (const row of db.prepare(`SELECT * FROM ${quoted} ORDER BY rowid`).raw().iterate())
        hash.update(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
    }
    return { hash: hash.digest('hex'), counts };
  } finally {
    db.close();
  }
}
