import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDataDir } from '../test/harness.js';
import { type Database, openDatabase } from './db/open.js';
import { createToken, ensureLocalOwner, userForToken } from './identity.js';

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
