import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Database } from '../db/open.js';
import type { Lang } from '../i18n.js';
import { page } from './password-page.js';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>;

/** How long a password link stays valid. */
export const LINK_TTL_MS = 15 * 60_000;
const SCRYPT = { N: 16_384, r: 8, p: 1 } as const;
const MAX_FORM_BYTES = 8 * 1024;
export const MIN_PASSWORD = 10;

/** One-time links to the password page opsdesk serves on loopback. */
export interface PasswordLinks {
  /** Where the page is served (set once the web listener is up). */
  setBaseUrl(url: string): void;
  baseUrl(): string | undefined;
  /**
   * The link for `username` in the tool call `contextId`. The same call always gets the same
   * link (the tool may run several rounds), a different call a different one.
   */
  linkFor(username: string, contextId: string): string;
  /** Whether the user's password has been set through the page. */
  isSet(username: string): boolean;
  /** Serves `/register/<token>`; undefined for any other path. */
  handle(request: Request): Promise<Response | undefined>;
}

interface Link {
  username: string;
  expires_at: number;
  used_at: number | null;
}

export function createPasswordLinks(db: Database, lang: Lang, now: () => number = Date.now): PasswordLinks {
  let base: string | undefined;
  const secret = linkSecret(db);
  const mac = (label: string, value: string) =>
    createHmac('sha256', secret).update(`${label}\0${value}`).digest('base64url');
  const hash = (token: string) => createHash('sha256').update(token).digest('hex');
  const find = (token: string) =>
    db.prepare('SELECT username, expires_at, used_at FROM password_links WHERE token_hash = ?').get(hash(token)) as
      | Link
      | undefined;

  async function post(request: Request, token: string, link: Link): Promise<Response> {
    const origin = request.headers.get('origin');
    if (origin !== null && base !== undefined && origin !== new URL(base).origin) return page(lang, 'forbidden', 403);
    if (!(request.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded'))
      return page(lang, 'forbidden', 415);
    const raw = await request.text();
    if (raw.length > MAX_FORM_BYTES) return page(lang, 'forbidden', 413);
    const body = new URLSearchParams(raw);
    const csrf = mac('csrf', token);
    const cookie = /(?:^|;\s*)ek_csrf=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
    if (!same(body.get('csrf') ?? '', csrf) || !same(cookie ?? '', csrf)) return page(lang, 'forbidden', 403);
    const password = body.get('password') ?? '';
    if (password.length < MIN_PASSWORD || password.length > 256 || password !== body.get('confirm')) {
      return page(lang, 'form', 400, {
        username: link.username,
        csrf,
        error: password !== body.get('confirm') ? 'mismatch' : 'length',
      });
    }
    const salt = randomBytes(16);
    const derived = await scryptAsync(password, salt, 32, { ...SCRYPT, maxmem: 64 * 1024 * 1024 });
    const stored = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${derived.toString('base64')}`;
    // Spend the link and set the password together: a second submit finds the link used.
    const spent = db.transaction(() => {
      const claimed = db
        .prepare('UPDATE password_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?')
        .run(now(), hash(token), now());
      if (claimed.changes !== 1) return false;
      db.prepare('UPDATE users SET password_hash = ? WHERE username = ?').run(stored, link.username);
      return true;
    })();
    return spent ? page(lang, 'done', 200, { username: link.username }) : page(lang, 'used', 410);
  }

  return {
    setBaseUrl(url) {
      base = url.replace(/\/+$/, '');
    },
    baseUrl: () => base,
    linkFor(username, contextId) {
      if (base === undefined) throw new Error('the password page is not being served');
      const token = mac('link', `${contextId}\0${username.toLowerCase()}`);
      db.prepare('INSERT OR IGNORE INTO password_links (token_hash, username, expires_at) VALUES (?, ?, ?)').run(
        hash(token),
        username,
        now() + LINK_TTL_MS,
      );
      // The token sits in the path, never the query: query strings end up in logs and history (EK14).
      return `${base}/register/${token}`;
    },
    isSet(username) {
      return db.prepare('SELECT password_hash IS NOT NULL FROM users WHERE username = ?').pluck().get(username) === 1;
    },
    async handle(request) {
      const match = /^\/register\/([A-Za-z0-9_-]{16,128})\/?$/.exec(new URL(request.url).pathname);
      if (!match)
        return new URL(request.url).pathname.startsWith('/register/') ? page(lang, 'invalid', 404) : undefined;
      const token = match[1] as string;
      const link = find(token);
      if (!link) return page(lang, 'invalid', 404);
      if (link.used_at !== null) return page(lang, 'used', 410);
      if (link.expires_at <= now()) return page(lang, 'expired', 410);
      if (request.method === 'POST') return post(request, token, link);
      if (request.method !== 'GET' && request.method !== 'HEAD') return page(lang, 'forbidden', 405);
      const csrf = mac('csrf', token);
      const response = page(lang, 'form', 200, { username: link.username, csrf });
      response.headers.append('set-cookie', `ek_csrf=${csrf}; HttpOnly; SameSite=Strict; Path=/register/${token}`);
      return response;
    },
  };
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The secret behind link tokens and CSRF values: made once per data directory. */
function linkSecret(db: Database): Buffer {
  const stored = db.prepare("SELECT value FROM meta WHERE key = 'link_secret'").pluck().get() as string | undefined;
  if (stored) return Buffer.from(stored, 'base64');
  const fresh = randomBytes(32);
  db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('link_secret', ?)").run(fresh.toString('base64'));
  return Buffer.from(db.prepare("SELECT value FROM meta WHERE key = 'link_secret'").pluck().get() as string, 'base64');
}
