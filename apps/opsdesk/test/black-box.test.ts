/**
 * Issue 11's attack, black-box: bob (search-service only) over a real transport — stdio child
 * process and HTTP on loopback — tries every way the issue found, and some more. Afterwards:
 * no secret in anything he was shown, opsdesk.db unchanged but for audit records, and no
 * deployment by bob outside search-service.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { type HttpServing, serveHttp } from '../src/serve-http.js';
import { fingerprint } from './fingerprint.js';
import { type Conn, httpClient, peek, stdioClient, tempDataDir } from './harness.js';

const ATTACKS: [tool: string, args: (dir: string) => Record<string, unknown>, status: string][] = [
  ['execute_sql', () => ({ sql: "SELECT * FROM 'meta'" }), 'rejected'],
  ['execute_sql', () => ({ sql: "SELECT * FROM 'api_tokens'" }), 'rejected'],
  ['execute_sql', () => ({ sql: 'SELECT * FROM [users]' }), 'rejected'],
  ['execute_sql', () => ({ sql: 'SELECT sql FROM sqlite_master' }), 'done'],
  ['execute_sql', () => ({ sql: "SELECT * FROM pragma_table_info('users')" }), 'rejected'],
  ['execute_sql', () => ({ sql: "UPDATE 'users' SET role = 'owner'" }), 'rejected'],
  ['execute_sql', () => ({ sql: "INSERT INTO 'permissions' VALUES ('bob', '*')" }), 'rejected'],
  [
    'execute_sql',
    () => ({ sql: "INSERT INTO 'release_tickets' VALUES ('REL-6666', 'order-service', 'approved', 'x')" }),
    'rejected',
  ],
  ['execute_sql', () => ({ sql: "DELETE FROM 'deployments' WHERE id > 0" }), 'rejected'],
  ['execute_sql', (dir) => ({ sql: `ATTACH '${join(dir, 'opsdesk.db')}' AS o` }), 'rejected'],
  ['execute_sql', (dir) => ({ sql: `VACUUM INTO '${join(dir, 'opsdesk.db')}'` }), 'rejected'],
  ['execute_sql', () => ({ sql: "SELECT json('{')" }), 'rejected'],
  ['list_deployments', () => ({ service: 'order-service' }), 'rejected'],
  ['list_deployments', () => ({}), 'done'],
  ['deploy_service', () => ({ service: 'order-service', env: 'dev' }), 'rejected'],
  ['deploy_service', () => ({ service: 'order-service', env: 'prod' }), 'rejected'],
  ['deploy_service', () => ({ service: 'payment-service', env: 'staging', version: 'v9' }), 'rejected'],
  ['weekly_report', () => ({ project: 'order-service', from: '2026-11-01', to: '2026-11-07' }), 'invalid'],
  ['deploy_service', () => ({ service: 'search-service', env: 'dev' }), 'done'],
];

function blackBox(transport: string, start: () => Promise<{ dir: string; bob: Conn; close(): Promise<void> }>) {
  describe(`bob attacks opsdesk over ${transport}`, () => {
    let s: Awaited<ReturnType<typeof start>>;
    beforeAll(async () => {
      s = await start();
    }, 120_000);
    afterAll(async () => {
      await s?.close();
    });

    it('gets no secret, writes nothing outside the shop, deploys nothing outside search-service', async () => {
      const file = join(s.dir, 'opsdesk.db');
      const secrets = [
        ...peek<{ token_hash: string }>(s.dir, 'SELECT token_hash FROM api_tokens').map((r) => r.token_hash),
        ...peek<{ value: string }>(s.dir, "SELECT value FROM meta WHERE key = 'state_secret'").map((r) => r.value),
      ];
      // What bob may change: the audit trail and his one deployment (a call that cannot come again records no claim).
      const mayChange = /^(audit_|deployments$)/;
      const before = fingerprint(file, mayChange);
      const shown: string[] = [];
      for (const [tool, args, status] of ATTACKS) {
        s.bob.script.splice(0, s.bob.script.length, {
          action: 'accept',
          content: { confirmed: true, ticket: 'REL-1001' },
        });
        const r = await callTool(s.bob.client, tool, args(s.dir));
        shown.push(r.text, JSON.stringify(r.structured ?? {}));
        expect(r.status, `${tool} ${JSON.stringify(args(s.dir))}: ${r.text}`).toBe(status);
      }
      const everything = shown.join('\n');
      for (const secret of secrets) expect(everything).not.toContain(secret);
      expect(fingerprint(file, mayChange)).toEqual(before);
      expect(
        peek(s.dir, "SELECT service, env FROM deployments WHERE deployed_by = 'bob' AND created_at > '2026-11-30'"),
      ).toEqual([{ service: 'search-service', env: 'dev' }]);
    });
  });
}

blackBox('stdio', async () => {
  const data = tempDataDir();
  const bob = await stdioClient(data.dir, { revision: '2025-11-25', user: 'bob' });
  return {
    dir: data.dir,
    bob,
    async close() {
      await bob.close();
      data.remove();
    },
  };
});

blackBox('HTTP (2026-07-28)', async () => {
  const data = tempDataDir();
  const http: HttpServing = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
  const token = http.newTokens.find((t) => t.username === 'bob')?.token ?? '';
  const bob = await httpClient(http.url, token, { revision: '2026-07-28' });
  return {
    dir: data.dir,
    bob,
    async close() {
      await bob.close();
      await http.close();
      data.remove();
    },
  };
});
