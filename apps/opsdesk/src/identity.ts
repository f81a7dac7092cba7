import { createHash, randomBytes } from 'node:crypto';
import { all, get, type Query, remember, run, value } from './db/query.js';
import { addUser } from './db/seed.js';
import type { Store } from './db/store.js';

/** Who is calling, as tools see it: the account (`id`, never reused) and its name now. */
export interface Identity {
  id: number;
  username: string;
  role: 'owner' | 'member';
}

type IdentityRow = { id: number | string; username: string; role: Identity['role'] };

/** A row's account, its id a number (Postgres hands a BIGINT over as text). Frozen: answers holding it are shared. */
export function identityOf(row: IdentityRow): Identity {
  return Object.freeze({ id: Number(row.id), username: row.username, role: row.role });
}

/** The account named `username` now. A name is freed when its account goes and can be taken by another: look it up once, then hold the id. */
export function* findUser(username: string): Query<Identity | undefined> {
  const row = yield* get<IdentityRow>('SELECT id, username, role FROM users WHERE username = ?', username);
  return row && identityOf(row);
}

/** The account `id`, under whatever name it has now; undefined once it is removed. */
export function* findAccount(id: number): Query<Identity | undefined> {
  const row = yield* get<IdentityRow>('SELECT id, username, role FROM users WHERE id = ?', id);
  return row && identityOf(row);
}

/**
 * The identity opsdesk gives the kit for an account (what `identify` returns, the 2026-07-28
 * requestState is bound to, the 2025 session caps count by, the audit names): its id, which no
 * other account ever gets, never its name, which the next account registered under it would share.
 */
export function accountIdentity(id: number): string {
  return String(id);
}

/**
 * The identity (`accountIdentity`) of the account named `username` now, for `createOpsdesk`'s
 * `identify`; undefined when no account has that name. Look it up once per person and hold it: a
 * name looked up again later may be another account's.
 *
 * @example
 * let caller: string | undefined;
 * const opsdesk = await createOpsdesk({ dataDir, locale: 'en', identify: () => caller });
 * caller = await accountIdentityOf(opsdesk.store, 'alice');
 */
export async function accountIdentityOf(store: Store, username: string): Promise<string | undefined> {
  const found = await store.run(findUser(username));
  return found && accountIdentity(found.id);
}

/** The account an identity (`accountIdentity`) names; undefined for anything else (a name, nothing). */
export function accountOf(identity: string | undefined): number | undefined {
  return identity !== undefined && /^[1-9][0-9]{0,14}$/.test(identity) ? Number(identity) : undefined;
}

/**
 * Under stdio the OS user runs opsdesk for themselves: on first start they are added as a local
 * owner who sees every project (`docs/opsdesk.md`). Run it in a transaction (`Store.transaction`):
 * several opsdesk processes may start on a fresh database at once (doctor does), and the loser of
 * an unlocked check-then-insert race crashed on the unique name.
 */
export function* ensureLocalOwner(username: string): Query<number> {
  return (yield* findUser(username))?.id ?? (yield* addUser(username, null, 'owner', ['*'], new Date().toISOString()));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Whether an operator's token is stored: one minted by a first start, which never expires. The
 * tokens a host holds for itself (`issueToken`: the web app's, doctor's) expire and are not
 * counted — a host that ran first must not make the operator's first start print nothing. Tokens
 * exist only as hashes in the database; the plain values are shown once, when created.
 */
export function* hasOperatorTokens(): Query<boolean> {
  return (yield* value<number>('SELECT COUNT(*) FROM api_tokens WHERE expires_at IS NULL')) !== 0;
}

/** Removes every operator's token (those that never expire): each is refused from the next request. */
export function* revokeOperatorTokens(): Query<void> {
  yield* run('DELETE FROM api_tokens WHERE expires_at IS NULL');
}

/**
 * A new token for the account `account` (its id: the token is that account's, whatever it is
 * called later, and no other's); `expiresAt` (epoch ms) for one an in-process host holds and renews.
 */
export function* createToken(account: number, expiresAt: number | null = null): Query<string> {
  const token = `ek_${randomBytes(24).toString('base64url')}`;
  yield* run(
    'INSERT INTO api_tokens (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
    sha256(token),
    account,
    new Date().toISOString(),
    expiresAt,
  );
  return token;
}

/**
 * The account a bearer token belongs to; undefined for an unknown token, one expired by `now` (a
 * host's token it stopped renewing) or a user no longer there. Every HTTP request (each answer
 * too) asks, so a store that can tell when the tables change remembers the answer (`remember`):
 * never past a change to the tokens or users, by this process or any other, so a revoked token is
 * refused from the next request.
 */
export function* userForToken(token: string, now: number = Date.now()): Query<Identity | undefined> {
  const found = yield* remember(`token\0${token}`, () => tokenHolder(token));
  // Compared on every use, never remembered: the memo is forgotten when the tables change, not as time passes.
  if (!found || (found.expiresAt !== null && found.expiresAt <= now)) return undefined;
  return found.identity;
}

function* tokenHolder(token: string): Query<{ identity: Identity; expiresAt: number | null } | undefined> {
  const row = yield* get<IdentityRow & { expires_at: number | string | null }>(
    'SELECT u.id, u.username, u.role, t.expires_at FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?',
    sha256(token),
  );
  // Frozen like the answer holding it: every later caller shares it.
  return row && { identity: identityOf(row), expiresAt: row.expires_at === null ? null : Number(row.expires_at) };
}

export function* listUsers(): Query<Identity[]> {
  return (yield* all<IdentityRow>('SELECT id, username, role FROM users ORDER BY id')).map(identityOf);
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
 * const token = await issueToken(serving.opsdesk.store, 'alice'); // Authorization: Bearer <token>
 */
export async function issueToken(store: Store, username: string, options: HostTokenOptions = {}): Promise<string> {
  const now = options.now ?? Date.now;
  const mint = () =>
    store.transaction(
      (function* () {
        const account = yield* ensureLocalOwner(username);
        // Each start of a host mints new tokens: those of hosts that stopped renewing go now.
        yield* pruneHostTokens(now());
        return yield* createToken(account, now() + HOST_TOKEN_TTL_MS);
      })(),
    );
  // The account was removed between its lookup and the token's write (on Postgres the write waits
  // for the removal, then its account is gone): nothing was written, and asked again the name is a
  // name not yet known. Once: a second removal in that window is an operator's to explain.
  const token = await mint().catch((error: unknown) => {
    if (accountGoneMeanwhile(error)) return mint();
    throw error;
  });
  hold(store, sha256(token), now);
  return token;
}

/** A token's write refused because its account no longer exists (Postgres: foreign key violation on `api_tokens`). */
function accountGoneMeanwhile(error: unknown): boolean {
  const e = error as { code?: unknown; table?: unknown } | null;
  return e?.code === '23503' && e.table === 'api_tokens';
}

/** For tests: the clock a host's tokens are dated and renewed by. */
export interface HostTokenOptions {
  now?: () => number;
}

/**
 * A host's tokens never leave its process, so once it is gone nobody can use them: they expire a
 * day after the host last renewed them (hourly, while it runs) and are deleted by the next host
 * that starts or renews on the same database. Tokens printed at first start never expire.
 */
export const HOST_TOKEN_TTL_MS = 24 * 60 * 60_000;
export const HOST_TOKEN_RENEW_MS = 60 * 60_000;

/** The tokens this process holds, per store, and the timer that renews them (stopped by `forgetHeldTokens`). */
const held = new WeakMap<Store, { hashes: Set<string>; timer: ReturnType<typeof setInterval> }>();

function hold(store: Store, hash: string, now: () => number): void {
  const known = held.get(store);
  if (known) {
    known.hashes.add(hash);
    return;
  }
  const hashes = new Set([hash]);
  const timer = setInterval(() => {
    if (!store.isOpen()) {
      forgetHeldTokens(store);
      return;
    }
    // A renewal that fails (the database is down for a moment) is tried again in an hour: a day's margin.
    store.transaction(renewHostTokens(hashes, now())).catch(() => {});
  }, HOST_TOKEN_RENEW_MS);
  // Renewing never keeps a process alive on its own.
  timer.unref?.();
  held.set(store, { hashes, timer });
}

/** Stops renewing `store`'s tokens: it is closing. */
export function forgetHeldTokens(store: Store): void {
  const known = held.get(store);
  if (!known) return;
  clearInterval(known.timer);
  held.delete(store);
}

function* renewHostTokens(hashes: ReadonlySet<string>, at: number): Query<void> {
  for (const hash of hashes)
    yield* run('UPDATE api_tokens SET expires_at = ? WHERE token_hash = ?', at + HOST_TOKEN_TTL_MS, hash);
  yield* pruneHostTokens(at);
}

function* pruneHostTokens(at: number): Query<void> {
  yield* run('DELETE FROM api_tokens WHERE expires_at IS NOT NULL AND expires_at <= ?', at);
}
