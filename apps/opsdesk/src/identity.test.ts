import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDataDir } from '../test/harness.js';
import { type Database, openDatabase } from './db/open.js';
import {
  createToken,
  ensureLocalOwner,
  HOST_TOKEN_RENEW_MS,
  HOST_TOKEN_TTL_MS,
  issueToken,
  userForToken,
} from './identity.js';

describe('userForToken: the caller behind a bearer token, looked up on every request', () => {
  let data: ReturnType<typeof tempDataDir>;
  let db: Database;
  beforeEach(() => {
    data = tempDataDir();
    db = openDatabase(data.dir);
  });
  afterEach(() => {
    db.close();
    data.remove();
  });

  it('finds each token’s own user, and nobody for an unknown token', () => {
    const alice = createToken(db, 'alice');
    const bob = createToken(db, 'bob');
    expect(userForToken(db, alice)).toEqual({ username: 'alice', role: 'member' });
    expect(userForToken(db, bob)).toEqual({ username: 'bob', role: 'member' });
    expect(userForToken(db, `${alice}x`)).toBeUndefined();
    expect(userForToken(db, '')).toBeUndefined();
  });

  it('a revoked token and a removed user stop working at the next request', () => {
    const token = createToken(db, 'bob');
    const other = createToken(db, 'bob');
    expect(userForToken(db, token)?.username).toBe('bob');
    db.prepare('DELETE FROM api_tokens WHERE username = ? AND token_hash != ?').run(
      'bob',
      db.prepare('SELECT token_hash FROM api_tokens ORDER BY rowid DESC LIMIT 1').pluck().get(),
    );
    expect(userForToken(db, token)).toBeUndefined();
    expect(userForToken(db, other)?.username).toBe('bob');
    db.prepare("DELETE FROM permissions WHERE username = 'bob'").run();
    db.prepare("DELETE FROM users WHERE username = 'bob'").run();
    expect(userForToken(db, other)).toBeUndefined();
  });

  it('finds the user whatever the case the token was made with, as stored, role included', () => {
    ensureLocalOwner(db, 'carol');
    const token = createToken(db, 'Carol');
    expect(userForToken(db, token)).toEqual({ username: 'carol', role: 'owner' });
  });
});

describe('tokens issued to in-process hosts (issueToken): renewed while the host lives, pruned after', () => {
  let data: ReturnType<typeof tempDataDir>;
  beforeEach(() => {
    data = tempDataDir();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    data.remove();
  });
  const rows = (db: Database) => db.prepare('SELECT COUNT(*) FROM api_tokens').pluck().get();

  it('a host restarted every day for a month leaves only the live host’s tokens behind', () => {
    let clock = Date.UTC(2026, 11, 1);
    const now = () => clock;
    const printed = openDatabase(data.dir);
    const kept = createToken(printed, 'alice'); // printed at first start: never expires
    printed.close();
    let live: { db: Database; tokens: string[] } | undefined;
    for (let day = 0; day < 30; day++) {
      live?.db.close(); // the previous host stopped (its timer stops renewing with it)
      const db = openDatabase(data.dir);
      live = { db, tokens: ['alice', 'bob'].map((user) => issueToken(db, user, { now })) };
      clock += 25 * 60 * 60_000;
      vi.advanceTimersByTime(HOST_TOKEN_RENEW_MS); // the live host renews (and prunes)
    }
    const db = live?.db as Database;
    expect(rows(db)).toBe(3);
    for (const token of live?.tokens ?? []) expect(userForToken(db, token)).toBeDefined();
    expect(userForToken(db, kept)?.username).toBe('alice');
    db.close();
  });

  it('a live host’s tokens outlast their first day while it renews them, even as another host starts and prunes', () => {
    let clock = Date.UTC(2026, 11, 1);
    const now = () => clock;
    const first = openDatabase(data.dir);
    const token = issueToken(first, 'alice', { now });
    for (let hour = 0; hour < 30; hour++) {
      clock += HOST_TOKEN_RENEW_MS;
      vi.advanceTimersByTime(HOST_TOKEN_RENEW_MS);
    }
    // A second host on the same data directory starts a day and more later: it prunes what expired.
    const second = openDatabase(data.dir);
    issueToken(second, 'bob', { now });
    expect(userForToken(second, token)?.username).toBe('alice');
    expect(userForToken(first, token)?.username).toBe('alice');
    first.close();
    // Once the first host is gone, its token lapses a day later and the next start removes it.
    clock += HOST_TOKEN_TTL_MS + 1;
    issueToken(second, 'carol', { now });
    expect(userForToken(second, token)).toBeUndefined();
    expect(rows(second)).toBe(1);
    second.close();
  });
});
