import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDataDir } from '../test/harness.js';
import { type Database, openDatabase } from './db/open.js';
import { sqliteStore } from './db/sqlite-store.js';
import {
  createToken,
  ensureLocalOwner,
  findUser,
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
  /** The account named `name` now: tokens are made for an account, by its id. */
  const account = (name: string) => sqliteStore(db).runNow(findUser(name))?.id ?? 0;

  it('finds each token’s own user, and nobody for an unknown token', () => {
    const alice = sqliteStore(db).runNow(createToken(account('alice')));
    const bob = sqliteStore(db).runNow(createToken(account('bob')));
    expect(sqliteStore(db).runNow(userForToken(alice))).toEqual({
      id: expect.any(Number),
      username: 'alice',
      role: 'member',
    });
    expect(sqliteStore(db).runNow(userForToken(bob))).toEqual({
      id: expect.any(Number),
      username: 'bob',
      role: 'member',
    });
    expect(sqliteStore(db).runNow(userForToken(`${alice}x`))).toBeUndefined();
    expect(sqliteStore(db).runNow(userForToken(''))).toBeUndefined();
  });

  it('a revoked token and a removed user stop working at the next request', () => {
    const token = sqliteStore(db).runNow(createToken(account('bob')));
    const other = sqliteStore(db).runNow(createToken(account('bob')));
    expect(sqliteStore(db).runNow(userForToken(token))?.username).toBe('bob');
    db.prepare('DELETE FROM api_tokens WHERE user_id = ? AND token_hash != ?').run(
      account('bob'),
      db.prepare('SELECT token_hash FROM api_tokens ORDER BY rowid DESC LIMIT 1').pluck().get(),
    );
    expect(sqliteStore(db).runNow(userForToken(token))).toBeUndefined();
    expect(sqliteStore(db).runNow(userForToken(other))?.username).toBe('bob');
    db.prepare("DELETE FROM users WHERE username = 'bob'").run();
    expect(sqliteStore(db).runNow(userForToken(other))).toBeUndefined();
  });

  it('finds the account under its name as stored, role included', () => {
    sqliteStore(db).runNow(ensureLocalOwner('carol'));
    const token = sqliteStore(db).runNow(createToken(account('Carol')));
    expect(sqliteStore(db).runNow(userForToken(token))).toEqual({
      id: expect.any(Number),
      username: 'carol',
      role: 'owner',
    });
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

  it('a host restarted every day for a month leaves only the live host’s tokens behind', async () => {
    let clock = Date.UTC(2026, 11, 1);
    const now = () => clock;
    const printed = openDatabase(data.dir);
    const kept = sqliteStore(printed).runNow(createToken(sqliteStore(printed).runNow(findUser('alice'))?.id ?? 0)); // printed at first start: never expires
    printed.close();
    let live: { db: Database; tokens: string[] } | undefined;
    for (let day = 0; day < 30; day++) {
      live?.db.close(); // the previous host stopped (its timer stops renewing with it)
      const db = openDatabase(data.dir);
      live = {
        db,
        tokens: [
          await issueToken(sqliteStore(db), 'alice', { now }),
          await issueToken(sqliteStore(db), 'bob', { now }),
        ],
      };
      clock += 25 * 60 * 60_000;
      vi.advanceTimersByTime(HOST_TOKEN_RENEW_MS); // the live host renews (and prunes)
    }
    const db = live?.db as Database;
    expect(rows(db)).toBe(3);
    for (const token of live?.tokens ?? []) expect(sqliteStore(db).runNow(userForToken(token, clock))).toBeDefined();
    expect(sqliteStore(db).runNow(userForToken(kept, clock))?.username).toBe('alice');
    db.close();
  });

  it('a live host’s tokens outlast their first day while it renews them, even as another host starts and prunes', async () => {
    let clock = Date.UTC(2026, 11, 1);
    const now = () => clock;
    const first = openDatabase(data.dir);
    const token = await issueToken(sqliteStore(first), 'alice', { now });
    for (let hour = 0; hour < 30; hour++) {
      clock += HOST_TOKEN_RENEW_MS;
      vi.advanceTimersByTime(HOST_TOKEN_RENEW_MS);
    }
    // A second host on the same data directory starts a day and more later: it prunes what expired.
    const second = openDatabase(data.dir);
    await issueToken(sqliteStore(second), 'bob', { now });
    expect(sqliteStore(second).runNow(userForToken(token, clock))?.username).toBe('alice');
    expect(sqliteStore(first).runNow(userForToken(token, clock))?.username).toBe('alice');
    first.close();
    // Once the first host is gone, its token lapses a day later (refused at once, still stored)
    // and the next start removes it.
    clock += HOST_TOKEN_TTL_MS + 1;
    expect(sqliteStore(second).runNow(userForToken(token, clock))).toBeUndefined();
    expect(rows(second)).toBe(2);
    await issueToken(sqliteStore(second), 'carol', { now });
    expect(sqliteStore(second).runNow(userForToken(token, clock))).toBeUndefined();
    expect(rows(second)).toBe(1);
    second.close();
  });
});
