import { createHash, randomBytes } from 'node:crypto';
import type { Database } from './db/open.js';
import { remembered } from './db/remembered.js';
import { addUser } from './db/seed.js';
import { plucked, prepared } from './db/statements.js';

/** Who is calling, as tools see it. */
export interface Identity {
  username: string;
  role: 'owner' | 'member';
}

export function findUser(db: Database, username: string): Identity | undefined {
  return prepared(db, 'SELECT username, role FROM users WHERE username = ?').get(username) as Identity | undefined;
}

/**
 * Under stdio the OS user runs opsdesk for themselves: on first start they are added as a local
 * owner who sees every project (SPEC §4).
 */
export function ensureLocalOwner(db: Database, username: string): void {
  // Check and insert under one write lock: several opsdesk processes may start on a fresh data
  // directory at once (doctor does), and the loser of an unlocked race crashed on the unique name.
  db.transaction(() => {
    if (!findUser(db, username)) addUser(db, username, null, 'owner', ['*'], new Date().toISOString());
  }).immediate();
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Tokens exist only as hashes in the database; the plain values are shown once, when created. */
export function hasTokens(db: Database): boolean {
  return plucked(db, 'SELECT COUNT(*) FROM api_tokens').get() !== 0;
}

export function createToken(db: Database, username: string): string {
  const token = `ek_${randomBytes(24).toString('base64url')}`;
  prepared(db, 'INSERT INTO api_tokens (token_hash, username, created_at) VALUES (?, ?, ?)').run(
    sha256(token),
    username,
    new Date().toISOString(),
  );
  return token;
}

/**
 * The user a bearer token belongs to; undefined for an unknown token or a user no longer there.
 * Every HTTP request (each answer too) asks, so the answer is remembered (`remembered`): never
 * past a change to the tokens or users, by this process or any other, so a revoked token is
 * refused from the next request.
 */
export function userForToken(db: Database, token: string): Identity | undefined {
  return remembered(
    db,
    `token\0${token}`,
    () =>
      prepared(
        db,
        'SELECT u.username, u.role FROM api_tokens t JOIN users u ON u.username = t.username WHERE t.token_hash = ?',
      ).get(sha256(token)) as Identity | undefined,
  );
}

export function listUsers(db: Database): Identity[] {
  return prepared(db, 'SELECT username, role FROM users ORDER BY id').all() as Identity[];
}

/**
 * A new bearer token for `username`, for a host that serves opsdesk in its own process and acts
 * for its people (the web app's chats). A name not yet known is added first as an owner who sees
 * every project, as the local user is under stdio. The token is returned once and stored hashed.
 *
 * @example
 * const serving = await serveHttp({ dataDir, locale: 'en', port: 0 });
 * const token = issueToken(serving.opsdesk.db, 'alice'); // Authorization: Bearer <token>
 */
export function issueToken(db: Database, username: string): string {
  ensureLocalOwner(db, username);
  return createToken(db, username);
}
