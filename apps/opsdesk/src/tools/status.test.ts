import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type Step } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, tempDataDir } from '../../test/harness.js';

const STATUSES = ['done', 'declined', 'cancelled', 'unsupported', 'invalid', 'rejected', 'timeout', 'pending'];

/** Error paths of every tool: each must still end in a result with `structuredContent.status`. */
const PATHS: [user: string, tool: string, args: Record<string, unknown>, status: string, answers?: Step[]][] = [
  ['alice', 'deploy_service', { service: 'no-such-service' }, 'rejected'],
  ['bob', 'deploy_service', { service: 'order-service', env: 'dev' }, 'rejected'],
  ['ghost', 'deploy_service', { service: 'search-service', env: 'dev' }, 'rejected'],
  [
    'alice',
    'deploy_service',
    { service: 'order-service', env: 'prod' },
    'invalid',
    [{ action: 'accept', content: { confirmed: true, ticket: 'REL-3001' } }],
  ],
  ['alice', 'list_deployments', { service: 'no-such-service' }, 'rejected'],
  ['ghost', 'list_deployments', {}, 'rejected'],
  ['alice', 'execute_sql', { sql: 'SELEC 1' }, 'rejected'],
  ['alice', 'execute_sql', { sql: "SELECT 'unterminated" }, 'rejected'],
  ['alice', 'execute_sql', { sql: "SELECT json('{')" }, 'rejected'],
  ['alice', 'execute_sql', { sql: 'SELECT abs(-9223372036854775807 - 1)' }, 'rejected'],
  ['alice', 'execute_sql', { sql: "SELECT * FROM json_each('not json')" }, 'rejected'],
  [
    'alice',
    'execute_sql',
    { sql: 'INSERT INTO products (id, name, price_cents, stock) VALUES (1, 2, 3, 4)' },
    'rejected',
  ],
  ['alice', 'execute_sql', { sql: 'SELECT 1; SELECT 2' }, 'rejected'],
  ['alice', 'execute_sql', { sql: '-- nothing' }, 'rejected'],
  ['alice', 'execute_sql', { sql: 'PRAGMA foreign_keys = OFF' }, 'rejected'],
  ['ghost', 'execute_sql', { sql: 'SELECT 1' }, 'rejected'],
  ['ghost', 'sync_file', { path: 'notes/plan.md' }, 'rejected'],
  ['alice', 'sync_file', { path: '../outside.txt' }, 'rejected'],
  ['alice', 'sync_file', { path: '/etc/passwd' }, 'rejected'],
  ['alice', 'sync_file', { path: 'a\u0000b' }, 'rejected'],
  ['alice', 'sync_file', { path: 'notes' }, 'rejected'],
  ['alice', 'sync_file', { path: 'missing.md' }, 'rejected'],
  ['alice', 'weekly_report', { project: 'order-service', from: '2026-02-30', to: '2026-03-01' }, 'invalid'],
  ['alice', 'weekly_report', { project: 'nope', from: '2026-11-01', to: '2026-11-02' }, 'invalid'],
  ['alice', 'weekly_report', { project: 'order-service', from: '2026-01-01', to: '2026-03-01' }, 'invalid'],
  ['ghost', 'weekly_report', { project: 'order-service', from: '2026-11-01', to: '2026-11-02' }, 'rejected'],
  // Arguments the input schema refuses: the kit, not the SDK, answers them.
  ['alice', 'deploy_service', {}, 'invalid'],
  ['alice', 'deploy_service', { service: 'order-service', env: 'qa' }, 'invalid'],
  ['alice', 'list_deployments', { service: 42 }, 'invalid'],
  ['alice', 'execute_sql', { sql: '' }, 'invalid'],
  ['alice', 'execute_sql', { sql: 'x'.repeat(20_001) }, 'invalid'],
  ['alice', 'sync_file', { path: ['notes/plan.md'] }, 'invalid'],
  ['alice', 'weekly_report', { to: null }, 'invalid'],
  ['ghost', 'execute_sql', {}, 'invalid'],
];

describe('every error path ends with a status', () => {
  let data: ReturnType<typeof tempDataDir>;
  const conns = new Map<string, Conn>();
  beforeAll(async () => {
    data = tempDataDir();
    for (const user of ['alice', 'bob', 'ghost']) conns.set(user, await memoryClient(data.dir, { user }));
  });
  afterAll(async () => {
    for (const c of conns.values()) await c.close();
    data.remove();
  });

  it.each(PATHS)('%s: %s %j → %s', async (user, tool, args, status, answers) => {
    const c = conns.get(user) as Conn;
    c.script.splice(0, c.script.length, ...(answers ?? []));
    const r = await callTool(c.client, tool, args);
    expect(STATUSES).toContain(r.status);
    expect(r.status, r.text).toBe(status);
    expect(r.text.length).toBeGreaterThan(0);
    expect(r.isError).toBe(status !== 'done' && status !== 'pending');
  });
});
