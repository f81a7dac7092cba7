/**
 * The password page's submit racing the call's end. The person is shown the link, then declines
 * (or the question times out) while a submit from the page is on its way. Whichever lands first,
 * the call must report what the database holds: `done` beside the account its page made, or
 * `declined` / `timeout` with no account and a link that no longer works. The submit is put at
 * the withdrawal by wrapping the live `links.withdraw` (the kit's last `isComplete` and the tool
 * both withdraw): just before it, just after it, or sent together with it (then either may win,
 * and what the call says must match what the database holds). Everything else is opsdesk over
 * HTTP with a real SDK client, on SQLite and on a real PostgreSQL server.
 */
import type { Revision } from '@elicitkit/form';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callTool, sleep } from '../../../../test/support/mcp.js';
import { startPostgres, type TestPostgres, withPostgres } from '../../../../test/support/postgres-server.js';
import { setPasswordOnPage } from '../../test/cases.js';
import { httpClient, peek, tempDataDir } from '../../test/harness.js';
import { serveHttp } from '../serve-http.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const POSTGRES = withPostgres('apps/opsdesk/src/tools/register-user-withdraw-race.test.ts');

/** Just before the withdrawal, just after it, or sent this many ms before it. */
type Landing = 'before' | 'after' | number;

/** Where opsdesk keeps its state: its data directory's SQLite file, or this Postgres database. */
let database: { url: string; pool: pg.Pool } | undefined;

/**
 * register_user for `username`, the person answering the password question with `answer` once the
 * page's submit has been set to land at the first withdrawal, `landing` it.
 */
async function race(revision: Revision, username: string, landing: Landing, answer: 'decline' | 'hang') {
  const data = tempDataDir();
  cleanup.push(() => data.remove());
  const served = await serveHttp({
    dataDir: data.dir,
    locale: 'en',
    port: 0,
    urlWaitMs: 200,
    timeoutMs: 1_000,
    ...(database ? { database: database.url } : {}),
  });
  cleanup.push(() => served.close());
  // A token of its own: on Postgres only the first start prints tokens.
  const c = await httpClient(served.url, await served.ownerToken('registrar'), { revision });
  cleanup.push(() => c.close());
  let link = '';
  let page: number | undefined;
  const { links } = served.opsdesk;
  const withdraw = links.withdraw.bind(links);
  let first = true;
  links.withdraw = async (contextId) => {
    if (!first) return withdraw(contextId);
    first = false;
    if (typeof landing === 'number') {
      // The person has the page open; their submit (its password hashed, then its transaction)
      // and the withdrawal `landing` ms later go out together.
      const submit = await pageOpen(link);
      const [status, made] = await Promise.all([
        submit().then((r) => r.status),
        sleep(landing).then(() => withdraw(contextId)),
      ]);
      page = status;
      return made;
    }
    if (landing === 'before') page = (await setPasswordOnPage(link)).status;
    const made = await withdraw(contextId);
    if (landing === 'after') page = (await setPasswordOnPage(link)).status;
    return made;
  };
  cleanup.push(() => {
    links.withdraw = withdraw;
  });
  c.script.push(
    { action: 'accept', content: { username, email: `${username}@example.com`, newsletter: false } },
    (params) => {
      link = String(params.url);
      return answer === 'hang' ? 'hang' : { action: 'decline' };
    },
  );
  const r = await callTool(c.client, 'register_user');
  const accounts = database
    ? (await database.pool.query('SELECT username FROM opsdesk.users WHERE username = $1', [username])).rows
    : peek(data.dir, 'SELECT username FROM users WHERE username = ?', username);
  return { r, accounts, page, link };
}

/** The password page opened at `link`: what submits it. */
async function pageOpen(link: string): Promise<() => Promise<Response>> {
  const page = await fetch(link);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const password = 'correct horse battery';
  return () =>
    fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: new URL(link).origin },
      body: new URLSearchParams({ csrf, password, confirm: password }),
    });
}

/** Sent together, either may win: what the call says is what the database holds, and the page agrees. */
async function together(revision: Revision, username: string, answer: 'decline' | 'hang', lead: number) {
  const { r, accounts, page } = await race(revision, username, lead, answer);
  if (page === 200) {
    expect(accounts).toEqual([{ username }]);
    expect(r.structured).toMatchObject({ status: 'done', username, passwordSet: true });
  } else {
    expect(page).toBe(404);
    expect(accounts).toEqual([]);
    expect(r.status).toBe(answer === 'hang' ? 'timeout' : 'declined');
  }
}

function races() {
  describe.each(['2025-11-25', '2026-07-28'] as Revision[])(
    'register_user: a submit racing a decline (%s)',
    (revision) => {
      // One Postgres database serves every case: each its own name.
      const tag = revision.replaceAll('-', '').slice(2);
      it('the submit lands just before the withdrawal: the account exists and the call says done', async () => {
        const { r, accounts, page } = await race(revision, `lane_${tag}`, 'before', 'decline');
        expect(page).toBe(200);
        expect(accounts).toEqual([{ username: `lane_${tag}` }]);
        expect(r.structured).toMatchObject({ status: 'done', username: `lane_${tag}`, passwordSet: true });
      });

      it('the submit lands just after the withdrawal: it makes nothing, and the call says declined', async () => {
        const { r, accounts, page, link } = await race(revision, `mika_${tag}`, 'after', 'decline');
        // The link is gone: the page says so, not that something failed.
        expect(page).toBe(404);
        expect((await fetch(link)).status).toBe(404);
        expect(accounts).toEqual([]);
        expect(r.status).toBe('declined');
      });
    },
  );

  describe('register_user: a submit racing a timeout (2025-11-25)', () => {
    it('the submit lands just before the withdrawal: the account exists and the call says done', async () => {
      const { r, accounts, page } = await race('2025-11-25', 'noor', 'before', 'hang');
      expect(page).toBe(200);
      expect(accounts).toEqual([{ username: 'noor' }]);
      expect(r.structured).toMatchObject({ status: 'done', username: 'noor', passwordSet: true });
    });

    it('the submit lands just after the withdrawal: it makes nothing, and the call says it timed out', async () => {
      const { r, accounts, page } = await race('2025-11-25', 'omar', 'after', 'hang');
      expect(page).toBe(404);
      expect(accounts).toEqual([]);
      expect(r.status).toBe('timeout');
    });
  });

  it('sent together with the withdrawal: whichever wins, the call and the database agree', async () => {
    for (const lead of [0, 20, 40, 60, 80, 100, 140, 200]) await together('2025-11-25', `pia${lead}`, 'decline', lead);
  });
}

describe('on SQLite', () => races());

describe.skipIf(!POSTGRES)('on Postgres', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.database('opsdesk');
    database = { url, pool: new pg.Pool({ connectionString: url }) };
  });
  afterAll(async () => {
    await database?.pool.end();
    database = undefined;
    await server?.stop();
  });
  races();
});
