/**
 * register_user: "Declined, cancelled or timed out, the link is withdrawn; … no account either
 * way, and the name stays free" (docs/opsdesk.md) — for a link not used yet. The URL question shows
 * the person the full link (URL mode must), so they can open it and set the password before they
 * answer the question. When the answer that then arrives is decline or cancel, the account the page
 * already made stays (it was made with its password, in one transaction), so the call reports it
 * made (`done`), never "declined, nothing was done". The result and the database agree.
 */
import type { Revision } from '@elicitkit/form';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { setPasswordOnPage } from '../../test/cases.js';
import { httpClient, peek, tempDataDir } from '../../test/harness.js';
import { type HttpServing, serveHttp } from '../serve-http.js';

let data: ReturnType<typeof tempDataDir>;
let server: HttpServing;
const tokenOf = (user: string) => server.newTokens.find((t) => t.username === user)?.token ?? '';

beforeAll(async () => {
  data = tempDataDir();
  server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0, urlWaitMs: 200 });
});
afterAll(async () => {
  await server.close();
  data.remove();
});

const CASES: [Revision, 'decline' | 'cancel'][] = [
  ['2025-11-25', 'decline'],
  ['2025-11-25', 'cancel'],
  ['2026-07-28', 'decline'],
  ['2026-07-28', 'cancel'],
];

describe.each(CASES)('register_user (%s): the page finished, then the question answered %s', (revision, action) => {
  it('reports the account made, never "nothing was done"', async () => {
    const username = `pg_${action}_${revision.replaceAll('-', '').slice(2)}`;
    const c = await httpClient(server.url, tokenOf('alice'), { revision });
    try {
      c.script.push(
        { action: 'accept', content: { username, email: `${username}@example.com`, newsletter: false } },
        async (params) => {
          // The person opens the link the question shows and sets the password, then answers.
          expect((await setPasswordOnPage(String(params.url))).status).toBe(200);
          return { action };
        },
      );
      const r = await callTool(c.client, 'register_user');
      const accounts = peek<{ n: number }>(data.dir, 'SELECT COUNT(*) AS n FROM users WHERE username = ?', username)[0]
        ?.n;
      expect({ status: r.status, accounts }, `the result (${r.text}) and the users table disagree`).toEqual({
        status: 'done',
        accounts: 1,
      });
      expect(r.structured).toMatchObject({ username, passwordSet: true });
    } finally {
      await c.close();
    }
  });
});
