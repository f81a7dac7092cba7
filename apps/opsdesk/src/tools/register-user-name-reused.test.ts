import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { setPasswordOnPage } from '../../test/cases.js';
import { type Conn, httpClient, tempDataDir, tokenOf } from '../../test/harness.js';
import { initializeStatus } from '../../test/raw-http.js';
import { type HttpServing, serveHttp } from '../serve-http.js';

let data: ReturnType<typeof tempDataDir>;
let server: HttpServing;
let alice: Conn;
beforeAll(async () => {
  data = tempDataDir();
  server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
  alice = await httpClient(server.url, tokenOf(server, 'alice'), { revision: '2025-11-25' });
});
afterAll(async () => {
  await alice.close();
  await server.close();
  data.remove();
});

/**
 * A removed user's bearer token names their account, which nobody holds again. An
 * account made later under that name — by anyone who may call register_user — is a new person:
 * the removed person's token must not become theirs.
 */
describe('register_user: a name of a removed user', () => {
  it('the new account does not answer to the removed user’s token', async () => {
    const bobs = tokenOf(server, 'bob');
    expect(await initializeStatus(server.url, bobs)).toBe(200);
    const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    db.exec("DELETE FROM users WHERE username = 'bob'");
    db.close();
    expect(await initializeStatus(server.url, bobs)).toBe(401);

    alice.script.push(
      { action: 'accept', content: { username: 'bob', email: 'new-bob@example.com', newsletter: false } },
      async (params) => {
        const page = await setPasswordOnPage(String(params.url));
        expect(page.status).toBe(200);
        return { action: 'accept' };
      },
    );
    const r = await callTool(alice.client, 'register_user');
    expect(r.structured).toMatchObject({ status: 'done', username: 'bob' });

    expect(await initializeStatus(server.url, bobs)).toBe(401);
  });

  it('nor does an account a host adds again under the name (issueToken)', async () => {
    const first = await server.ownerToken('erin');
    expect(await initializeStatus(server.url, first)).toBe(200);
    const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    db.exec("DELETE FROM users WHERE username = 'erin'");
    db.close();
    const second = await server.ownerToken('erin');
    expect(await initializeStatus(server.url, second)).toBe(200);
    expect(await initializeStatus(server.url, first)).toBe(401);
  });
});
