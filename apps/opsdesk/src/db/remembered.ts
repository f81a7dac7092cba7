import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './open.js';

/** The tables who someone is and what they may do are read from: a change to any of them forgets everything. */
const WATCHED = ['api_tokens', 'users', 'permissions', 'services'] as const;
/** Past this many answers the memo starts again (one per token and per person × service in use). */
const LIMIT = 1000;
/**
 * Or past this many characters of keys: a key holds what a caller named (a service), so a few
 * hundred answers under long names cannot hold the server's memory either.
 */
const KEY_CHARS = 256 * 1024;

interface Memo {
  /** `PRAGMA data_version` when `answers` were read: it changes when another connection commits. */
  version: unknown;
  answers: Map<string, unknown>;
  /** The characters of the keys in `answers`. */
  keyChars: number;
  dataVersion: BetterSqlite3.Statement<unknown[], unknown>;
}

// Per connection, so a closed database takes its memo with it.
const memos = new WeakMap<Database, Memo>();

function memoOf(db: Database): Memo {
  const known = memos.get(db);
  if (known) return known;
  const memo: Memo = {
    version: undefined,
    answers: new Map(),
    keyChars: 0,
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
  };
  // A write through this connection (opsdesk's own, or anything else holding `db`) does not change
  // data_version: TEMP triggers (this connection's only, nothing stored in the file) forget at once.
  db.function('opsdesk_forget_remembered', () => {
    forget(memo);
    return null;
  });
  for (const table of WATCHED)
    for (const op of ['INSERT', 'UPDATE', 'DELETE'])
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS opsdesk_remembered_${table}_${op.toLowerCase()} AFTER ${op} ON main.${table} BEGIN SELECT opsdesk_forget_remembered(); END`,
      );
  memos.set(db, memo);
  return memo;
}

/**
 * `read()`'s answer about who someone is or what they may do (it may read `api_tokens`, `users`,
 * `permissions` and `services` only), remembered under `key` for as long as none of those tables
 * has changed, and never past a change: before every use it asks SQLite whether another connection
 * committed since (`PRAGMA data_version`: another opsdesk process, the CLI, a replica on this data
 * directory), and any write to those tables through this connection forgets every answer the
 * moment it is made (TEMP triggers). So a revoked token, grant or user applies from the next
 * request exactly as if nothing were remembered. An undefined answer (an unknown token) is not
 * remembered, nor one read inside a transaction (it might be rolled back); one remembered before
 * is used inside a transaction too — data_version is asked there, after BEGIN, and a write to the
 * watched tables in it forgets at once (deploy_service's check again in its row's transaction
 * costs no statement). Answers are frozen:
 * they are shared by every later caller.
 *
 * Not watched: a watched table dropped and created again through this same connection (its
 * triggers go with it). opsdesk never does that once open; another connection doing it commits,
 * which data_version sees.
 *
 * @example
 * const who = remembered(db, `token\0${token}`, () => lookUp(token));
 */
export function remembered<T extends object>(db: Database, key: string, read: () => T | undefined): T | undefined {
  const memo = memoOf(db);
  // Read before the tables are: a commit landing after this is seen by the next use.
  const version = memo.dataVersion.get();
  if (version !== memo.version) {
    forget(memo);
    memo.version = version;
  }
  const known = memo.answers.get(key) as T | undefined;
  if (known !== undefined) return known;
  const answer = read();
  // Not kept: an unknown token, or an answer read inside a transaction (it may be rolled back).
  if (answer === undefined || db.inTransaction) return answer;
  if (memo.answers.size >= LIMIT || memo.keyChars + key.length > KEY_CHARS) forget(memo);
  memo.answers.set(key, Object.freeze(answer));
  memo.keyChars += key.length;
  return answer;
}

function forget(memo: Memo): void {
  memo.answers.clear();
  memo.keyChars = 0;
}
