import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Locale } from '@elicitkit/server';
import { CommitOutcomeUnknownError } from '../db/commit-outcome.js';
import { get, type Query, run, value } from '../db/query.js';
import type { Store } from '../db/store.js';
import { logError } from './last-resort.js';
import { page } from './password-page.js';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>;

/** How long a password link stays valid. */
const LINK_TTL_MS = 15 * 60_000;
const SCRYPT = { N: 16_384, r: 8, p: 1 } as const;
const MAX_FORM_BYTES = 8 * 1024;
const MIN_PASSWORD = 10;

/** What the registration form collected, waiting for its password. */
export interface Registration {
  username: string;
  email: string;
  newsletter: boolean;
  /** The id of the account that asked for it: the page makes nothing once that account is gone. */
  requestedBy: number;
}

/**
 * One-time links to the password page opsdesk serves on loopback. A link stands for a registration
 * waiting for its password, which is not an account: the page creates the account and its password
 * together, or nothing exists. A link the call gives up on stops working; an abandoned one expires.
 */
export interface PasswordLinks {
  /** Where the page is served (set once the web listener is up). */
  setBaseUrl(url: string): void;
  baseUrl(): string | undefined;
  /**
   * How to open the page's listener when it is first needed (stdio serving opens it lazily);
   * it resolves with the base URL.
   */
  setOpener(open: () => Promise<string>): void;
  /** Opens the page if it is not served yet (once; a failed opening is tried again next time). */
  ready(): Promise<void>;
  /**
   * The link for the registration of tool call `contextId`. The same call always gets the same
   * link (the tool may run several rounds), a different call a different one. A call has one
   * registration: a link it got before under another name stops working.
   */
  linkFor(registration: Registration, contextId: string): Promise<string>;
  /** Whether the call's registration of `username` became an account (its password was set on the page). */
  isRegistered(contextId: string, username: string): Promise<boolean>;
  /**
   * Whether the call's page for `username` was used and found the name taken (another registration
   * finished first): its link is spent, and the call has no account.
   */
  foundTaken(contextId: string, username: string): Promise<boolean>;
  /**
   * The call will not wait for the page any more (declined, cancelled, timed out): its link stops
   * working. Returns the account the call's registration made, if its page was finished first —
   * read in the same transaction, so no submit lands between the answer and the withdrawal.
   */
  withdraw(contextId: string): Promise<string | undefined>;
  /** Serves `/register/<token>`; undefined for any other path. */
  handle(request: Request): Promise<Response | undefined>;
}

interface PendingRow {
  context_id: string;
  username: string;
  email: string;
  newsletter: number;
  expires_at: number;
  used_at: number | null;
  /** 1 while the account that asked for the registration exists (0 once removed, or never recorded). */
  asker: number;
}

/** Whether the account that asked for registration `r` still exists: as a 0 or 1 on both databases. */
const ASKER_EXISTS = 'CASE WHEN EXISTS (SELECT 1 FROM users u WHERE u.id = r.requested_by_id) THEN 1 ELSE 0 END';

/**
 * The password links of `store`'s registrations; `secret` (`linkSecret`) signs their tokens and
 * CSRF values, the same in every process on one database.
 */
export function createPasswordLinks(
  store: Store,
  secret: Buffer,
  locale: Locale,
  now: () => number = Date.now,
): PasswordLinks {
  let base: string | undefined;
  let opener: (() => Promise<string>) | undefined;
  let opening: Promise<void> | undefined;
  const mac = (label: string, value: string) =>
    createHmac('sha256', secret).update(`${label}\0${value}`).digest('base64url');
  const hash = (token: string) => createHash('sha256').update(token).digest('hex');
  const find = (token: string) =>
    store.run(
      get<PendingRow>(
        `SELECT context_id, username, email, newsletter, expires_at, used_at, ${ASKER_EXISTS} AS asker FROM registrations r WHERE token_hash = ?`,
        hash(token),
      ),
    );

  async function post(request: Request, token: string, pending: PendingRow): Promise<Response> {
    const origin = request.headers.get('origin');
    if (origin !== null && base !== undefined && origin !== new URL(base).origin) return page(locale, 'forbidden', 403);
    // The media type whole and without case (RFC 9110): not a type that only begins like it.
    const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') return page(locale, 'forbidden', 415);
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.length > MAX_FORM_BYTES) return page(locale, 'forbidden', 413);
    // The page is UTF-8 and so is what a browser sends from it. Anything else, as bytes or as
    // escapes, would be read with U+FFFD in place of what was typed: a password nobody typed. The
    // listener has already decoded the bytes (bytes that are not UTF-8 arrive as U+FFFD, which a
    // browser would have sent escaped), so a bare U+FFFD is refused too.
    const raw = new TextDecoder().decode(bytes);
    if (raw.includes('\uFFFD') || !raw.split(/[&=]/).every(escapesUtf8)) return page(locale, 'forbidden', 400);
    const body = new URLSearchParams(raw);
    const csrf = mac('csrf', token);
    const cookie = /(?:^|;\s*)ek_csrf=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
    if (!same(body.get('csrf') ?? '', csrf) || !same(cookie ?? '', csrf)) return page(locale, 'forbidden', 403);
    const password = body.get('password') ?? '';
    if (password.length < MIN_PASSWORD || password.length > 256 || password !== body.get('confirm')) {
      return page(locale, 'form', 400, {
        username: pending.username,
        csrf,
        error: password !== body.get('confirm') ? 'mismatch' : 'length',
      });
    }
    const salt = randomBytes(16);
    const derived = await scryptAsync(password, salt, 32, { ...SCRYPT, maxmem: 64 * 1024 * 1024 });
    const stored = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${derived.toString('base64')}`;
    // Spend the link and create the account with its password together: a second submit finds the
    // link used, and a name taken meanwhile (another registration finished first) creates nothing.
    const outcome = await store
      .transaction(
        (function* (): Query<'done' | 'used' | 'taken' | 'invalid' | 'expired' | 'revoked' | { made: string }> {
          // Whoever asked for the registration must still have an account as it is made: one removed
          // while the page was open (or before it was opened) makes nothing, nor spends the link.
          const asked = yield* get<{ asker: number }>(
            `SELECT ${ASKER_EXISTS} AS asker FROM registrations r WHERE token_hash = ?`,
            hash(token),
          );
          if (asked !== undefined && Number(asked.asker) !== 1) return 'revoked';
          const spent = yield* run(
            'UPDATE registrations SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?',
            now(),
            hash(token),
            now(),
          );
          // The link changed since the page looked it up (while the password was hashed): say how, as
          // the page would now — withdrawn (the call declined, was cancelled or timed out), used, expired.
          if (spent !== 1) {
            const row = yield* get<{ used_at: number | null }>(
              'SELECT used_at FROM registrations WHERE token_hash = ?',
              hash(token),
            );
            return row === undefined ? 'invalid' : row.used_at !== null ? 'used' : 'expired';
          }
          // One call makes one account: a link of the same call under another name (a 2026-07-28
          // round answered twice) is spent once the call has its account.
          const made = yield* value<string>(
            'SELECT username FROM users WHERE registration_cid = ?',
            pending.context_id,
          );
          if (made !== undefined) return { made };
          if (yield* get('SELECT 1 FROM users WHERE username = ?', pending.username)) return 'taken';
          yield* run(
            'INSERT INTO users (username, email, newsletter, role, password_hash, registration_cid, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
            pending.username,
            pending.email,
            pending.newsletter,
            'member',
            stored,
            pending.context_id,
            new Date(now()).toISOString(),
          );
          return 'done';
        })(),
      )
      .catch((error: unknown) => {
        // The operator's log has why; the person gets a page, not the listener's JSON-RPC error.
        logError(error, 'POST /register/…');
        // A COMMIT whose answer was lost was settled by the store already: committed came back as
        // done, and what throws was rolled back (nothing made, the link unused) — unless the
        // database would not say, and then nobody can tell yet.
        return error instanceof CommitOutcomeUnknownError ? ('unsure' as const) : ('failed' as const);
      });
    if (outcome === 'taken') return page(locale, 'taken', 409, { username: pending.username });
    // Not 'used': this link was not, and the person is told which account their registration made.
    if (typeof outcome === 'object') return page(locale, 'made', 409, { username: outcome.made });
    if (outcome === 'failed') return page(locale, 'failed', 500);
    if (outcome === 'unsure') return page(locale, 'unsure', 503);
    if (outcome === 'invalid') return page(locale, 'invalid', 404);
    if (outcome === 'expired') return page(locale, 'expired', 410);
    if (outcome === 'revoked') return page(locale, 'revoked', 410);
    return outcome === 'done' ? page(locale, 'done', 200, { username: pending.username }) : page(locale, 'used', 410);
  }

  return {
    setBaseUrl(url) {
      base = url.replace(/\/+$/, '');
    },
    baseUrl: () => base,
    setOpener(open) {
      opener = open;
    },
    ready() {
      if (base !== undefined) return Promise.resolve();
      if (!opener) return Promise.reject(new Error('the password page is not being served'));
      const open = opener;
      opening ??= open().then(
        (url) => {
          base = url.replace(/\/+$/, '');
        },
        (error: unknown) => {
          opening = undefined;
          throw error;
        },
      );
      return opening;
    },
    async linkFor({ username, email, newsletter, requestedBy }, contextId) {
      if (base === undefined) throw new Error('the password page is not being served');
      // The link stands for the whole answer, not the name alone: the account it makes holds what
      // the person answered when they were shown this link — the name as spelled (names compare
      // without case, but 'quinn' answered after 'Quinn' is a new answer, not the old link).
      const token = mac('link', `${contextId}\0${username}\0${email}\0${newsletter ? 1 : 0}`);
      await store.run(
        (function* () {
          yield* run('DELETE FROM registrations WHERE expires_at <= ?', now());
          // The call's registration is the one its latest answer made: a link it gave out for another
          // answer (the same 2026-07-28 round answered again, the name or the email corrected) stops working.
          yield* run(
            'DELETE FROM registrations WHERE context_id = ? AND token_hash <> ? AND used_at IS NULL',
            contextId,
            hash(token),
          );
          yield* run(
            'INSERT INTO registrations (token_hash, context_id, username, email, newsletter, expires_at, requested_by_id) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
            hash(token),
            contextId,
            username,
            email,
            newsletter ? 1 : 0,
            now() + LINK_TTL_MS,
            requestedBy,
          );
        })(),
      );
      // The token sits in the path, never the query: query strings end up in logs and history (EK14).
      return `${base}/register/${token}`;
    },
    async isRegistered(contextId, username) {
      // As spelled: the account another answer of this call made under 'Quinn' is not this answer's 'quinn'.
      const made = await store.run(value<string>('SELECT username FROM users WHERE registration_cid = ?', contextId));
      return made === username;
    },
    async foundTaken(contextId, username) {
      const found = await store.run(
        get(
          'SELECT 1 FROM registrations WHERE context_id = ? AND username = ? AND used_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users WHERE registration_cid = ?)',
          contextId,
          username,
          contextId,
        ),
      );
      return found !== undefined;
    },
    withdraw: (contextId) =>
      // Under opsdesk's write lock, as the page's submit is: it either finished before (its account
      // is read here) or finds its link gone after.
      store.transaction(
        (function* () {
          yield* run('DELETE FROM registrations WHERE context_id = ? AND used_at IS NULL', contextId);
          return yield* value<string>('SELECT username FROM users WHERE registration_cid = ?', contextId);
        })(),
      ),
    async handle(request) {
      const match = /^\/register\/([A-Za-z0-9_-]{16,128})\/?$/.exec(new URL(request.url).pathname);
      if (!match)
        return new URL(request.url).pathname.startsWith('/register/') ? page(locale, 'invalid', 404) : undefined;
      const token = match[1] as string;
      const pending = await find(token);
      if (!pending) return page(locale, 'invalid', 404);
      if (pending.used_at !== null) return page(locale, 'used', 410);
      if (pending.expires_at <= now()) return page(locale, 'expired', 410);
      if (Number(pending.asker) !== 1) return page(locale, 'revoked', 410);
      if (request.method === 'POST') return post(request, token, pending);
      if (request.method !== 'GET' && request.method !== 'HEAD') return page(locale, 'forbidden', 405);
      const csrf = mac('csrf', token);
      const response = page(locale, 'form', 200, { username: pending.username, csrf });
      response.headers.append('set-cookie', `ek_csrf=${csrf}; HttpOnly; SameSite=Strict; Path=/register/${token}`);
      return response;
    },
  };
}

/** Whether a form name or value's %-escapes spell UTF-8 (`decodeURIComponent` refuses what does not). */
function escapesUtf8(part: string): boolean {
  try {
    decodeURIComponent(part);
    return true;
  } catch {
    return false;
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The secret behind link tokens and CSRF values: made once per database, the first process to ask wins. */
export function* linkSecret(): Query<Buffer> {
  return Buffer.from(yield* storedSecret('link_secret', () => randomBytes(32).toString('base64')), 'base64');
}

/**
 * The secret kept under `key` in `meta`, made by `fresh` the first time. Several processes may
 * ask at once: one insert wins, and every one reads the winner's.
 */
export function* storedSecret(key: string, fresh: () => string): Query<string> {
  const stored = yield* value<string>('SELECT value FROM meta WHERE key = ?', key);
  if (stored) return stored;
  yield* run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING', key, fresh());
  return (yield* value<string>('SELECT value FROM meta WHERE key = ?', key)) as string;
}
