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
 * owner who sees every project (`docs/opsdesk.md`).
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

/** A new token for `username`; `expiresAt` (epoch ms) for one an in-process host holds and renews. */
export function createToken(db: Database, username: string, expiresAt: number | null = null): string {
  const token = `ek_${randomBytes(24).toString('base64url')}`;
  prepared(db, 'INSERT INTO api_tokens (token_hash, username, created_at, expires_at) VALUES (?, ?, ?, ?)').run(
    sha256(token),
    username,
    new Date().toISOString(),
    expiresAt,
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
 * every project, as the local user is under stdio. The token is returned once and stored hashed;
 * this process renews it while it runs, and once it stops it expires and is pruned (a host
 * restarted mints new ones, so rows never pile up).
 *
 * @example
 * const serving = await serveHttp({ dataDir, locale: 'en', port: 0 });
 * const token = issueToken(serving.opsdesk.db, 'alice'); // Authorization: Bearer <token>
 */
export function issueToken(db: Database, username: string, options: HostTokenOptions = {}): string {
  const now = options.now ?? Date.now;
  ensureLocalOwner(db, username);
  // Each start of a host mints new tokens: those of hosts that stopped renewing go now.
  pruneHostTokens(db, now());
  const token = createToken(db, username, now() + HOST_TOKEN_TTL_MS);
  hold(db, sha256(token), now);
  return token;
}

/** For tests: the clock a host's tokens are dated and renewed by. */
export interface HostTokenOptions {
  now?: () => number;
}

/**
 * A host's tokens never leave its process, so once it is gone nobody can use them: they expire a
 * day after the host last renewed them (hourly, while it runs) and are deleted by the next host
 * that starts or renews on the same data directory. Tokens printed at first start never expire.
 */
export const HOST_TOKEN_TTL_MS = 24 * 60 * 60_000;
export const HOST_TOKEN_RENEW_MS = 60 * 60_000;

/** The tokens this process holds, per database connection, and the timer that renews them. */
const held = new WeakMap<Database, { hashes: Set<string>; timer: ReturnType<typeof setInterval> }>();

function hold(db: Database, hash: string, now: () => number): void {
  const known = held.get(db);
  if (known) {
    known.hashes.add(hash);
    return;
  }
  const hashes = new Set([hash]);
  const timer = setInterval(() => {
    if (!db.open) {
      clearInterval(timer);
      held.delete(db);
      return;
    }
    renewHostTokens(db, hashes, now());
  }, HOST_TOKEN_RENEW_MS);
  // Renewing never keeps a process alive on its own.
  timer.unref?.();
  held.set(db, { hashes, timer });
}

function renewHostTokens(db: Database, hashes: ReadonlySet<string>, at: number): void {
  db.transaction(() => {
    const renew = prepared(db, 'UPDATE api_tokens SET expires_at = ? WHERE token_hash = ?');
    for (const hash of hashes) renew.run(at + HOST_TOKEN_TTL_MS, hash);
    pruneHostTokens(db, at);
  }).immediate();
}

function pruneHostTokens(db: Database, at: number): void {
  prepared(db, 'DELETE FROM api_tokens WHERE expires_at IS NOT NULL AND expires_at <= ?').run(at);
}
