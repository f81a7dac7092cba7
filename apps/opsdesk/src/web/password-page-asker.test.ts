/**
 * The password page makes an account only while the account that asked for the registration
 * exists, checked in the transaction that makes it: an asker removed after the page was shown —
 * while the password was being hashed — makes nothing and spends nothing. The removal is put
 * between the page's look-up and its transaction by wrapping the store's `transaction`; the store
 * is opsdesk's own on a SQLite data directory, the requests the ones a browser sends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tempDataDir } from '../../test/harness.js';
import { openDatabase } from '../db/open.js';
import { sqliteStore } from '../db/sqlite-store.js';
import type { Store } from '../db/store.js';
import { createPasswordLinks } from './password-links.js';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanup.splice(0).reverse()) fn();
});

function setUp() {
  const data = tempDataDir();
  const db = openDatabase(data.dir);
  cleanup.push(
    () => data.remove(),
    () => db.close(),
  );
  const store = sqliteStore(db);
  const before: (() => void)[] = [];
  // What runs just before the page's transaction: the operator's removal, in the middle of a submit.
  const wrapped: Store = Object.create(store, {
    transaction: {
      value: <T>(query: Parameters<Store['transaction']>[0]) => {
        for (const fn of before.splice(0)) fn();
        return store.transaction(query as never) as Promise<T>;
      },
    },
  });
  const links = createPasswordLinks(wrapped, Buffer.alloc(32, 7), 'en');
  links.setBaseUrl('http://127.0.0.1:9');
  const asker = Number(
    db
      .prepare("INSERT INTO users (username, role, created_at) VALUES ('asker', 'owner', 'x') RETURNING id")
      .pluck()
      .get(),
  );
  const users = (name: string) => db.prepare('SELECT COUNT(*) FROM users WHERE username = ?').pluck().get(name);
  return { db, links, asker, before, users };
}

/** The page opened (its CSRF value and cookie), then submitted with a password. */
async function openThenSubmit(links: ReturnType<typeof createPasswordLinks>, url: string, between: () => void) {
  const shown = (await links.handle(new Request(url))) as Response;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await shown.text())?.[1] ?? '';
  const cookie = (shown.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  between();
  const password = 'correct horse battery';
  return (await links.handle(
    new Request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: 'http://127.0.0.1:9' },
      body: new URLSearchParams({ csrf, password, confirm: password }),
    }),
  )) as Response;
}

describe('the password page and the account that asked for the registration', () => {
  it('makes the account while the asker exists', async () => {
    const { links, asker, users } = setUp();
    const url = await links.linkFor(
      { username: 'zoe', email: 'z@example.com', newsletter: false, requestedBy: asker },
      'c1',
    );
    expect((await openThenSubmit(links, url, () => {})).status).toBe(200);
    expect(users('zoe')).toBe(1);
  });

  it('makes nothing, and spends nothing, when the asker is removed while the password is hashed', async () => {
    const { db, links, asker, before, users } = setUp();
    const url = await links.linkFor(
      { username: 'zed', email: 'z@example.com', newsletter: false, requestedBy: asker },
      'c2',
    );
    const sent = await openThenSubmit(links, url, () =>
      before.push(() => db.prepare('DELETE FROM users WHERE id = ?').run(asker)),
    );
    expect([sent.status, await sent.text()]).toEqual([410, expect.stringContaining('no longer exists')]);
    expect(users('zed')).toBe(0);
    expect(db.prepare('SELECT used_at FROM registrations').pluck().all()).toEqual([null]);
    // Opened again, it says the same; it never says "used".
    const again = (await links.handle(new Request(url))) as Response;
    expect([again.status, await again.text()]).toEqual([410, expect.stringContaining('no longer exists')]);
  });

  it('refuses a registration recorded before the asker was (pending across the upgrade to version 9)', async () => {
    const { db, links, asker, users } = setUp();
    const url = await links.linkFor(
      { username: 'ula', email: 'u@example.com', newsletter: false, requestedBy: asker },
      'c3',
    );
    db.prepare('UPDATE registrations SET requested_by_id = NULL').run();
    const sent = await openThenSubmit(links, url, () => {});
    expect(sent.status).toBe(410);
    expect(users('ula')).toBe(0);
  });
});
