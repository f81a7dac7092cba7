import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { setPasswordOnPage } from '../../test/cases.js';
import { type Conn, httpClient, tempDataDir, tokenOf } from '../../test/harness.js';
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

/** How opsdesk answers a request carrying `token`: 401 for a token that names nobody. */
async function statusWith(token: string): Promise<number> {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  await response.body?.cancel();
  return response.status;
}

/**
 * A removed user's bearer token names their account, which nobody holds again. An
 * account made later under that name — by anyone who may call register_user — is a new person:
 * the removed person's token must not become theirs.
 */
describe('register_user: a name of a removed user', () => {
  it('the new account does not answer to the removed user’s token', async () => {
    const bobs = tokenOf(server, 'bob');
    expect(await statusWith(bobs)).toBe(200);
    const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    db.exec("DELETE FROM users WHERE username = 'bob'");
    db.close();
    expect(await statusWith(bobs)).toBe(401);

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

    expect(await statusWith(bobs)).toBe(401);
  });

  it('nor does an account a host adds again under the name (issueToken)', async () => {
    const first = await server.ownerToken('erin');
    expect(await statusWith(first)).toBe(200);
    const db = new BetterSqlite3(join(data.dir, 'opsdesk.db'));
    db.exec("DELETE FROM users WHERE username = 'erin'");
    db.close();
    const second = await server.ownerToken('erin');
    expect(await statusWith(second)).toBe(200);
    expect(await statusWith(first)).toBe(401);
  });
});
