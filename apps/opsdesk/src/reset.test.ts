import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { count, memoryClient, peek, peekShop, tempDataDir } from '../test/harness.js';
import { createToken, findUser, userForToken } from './identity.js';
import { resetDemo } from './reset.js';

let data: ReturnType<typeof tempDataDir>;
afterEach(() => data.remove());

describe('resetting the demo', () => {
  it('puts the shop, deployments, workspace and sync state back to the seed, keeping users, tokens and the audit trail', async () => {
    data = tempDataDir();
    const c = await memoryClient(data.dir);
    const token = await c.opsdesk.store.run(createToken((await c.opsdesk.store.run(findUser('alice')))?.id ?? 0));
    c.script.push({ action: 'accept', content: { understood: true, typedTableName: 'order_items' } });
    expect((await callTool(c.client, 'execute_sql', { sql: 'DELETE FROM order_items' })).status).toBe('done');
    expect((await callTool(c.client, 'execute_sql', { sql: 'CREATE TABLE junk (x)' })).status).toBe('done');
    expect((await callTool(c.client, 'deploy_service', { service: 'search-service', env: 'dev' })).status).toBe('done');
    writeFileSync(join(data.dir, 'workspace', 'local', 'notes', 'plan.md'), 'scribbled\n');
    writeFileSync(join(data.dir, 'workspace', 'remote', 'stray.txt'), 'stray\n');
    await c.close();
    const audit = count(data.dir, 'audit_requests');
    expect(audit).toBeGreaterThan(0);

    const report = await resetDemo(data.dir);

    expect(report.shop).toBe(join(data.dir, 'shop.db'));
    expect(count(data.dir, 'order_items')).toBeGreaterThan(2000);
    expect(peekShop(data.dir, "SELECT name FROM sqlite_schema WHERE name = 'junk'")).toEqual([]);
    expect(count(data.dir, 'deployments')).toBe(6);
    expect(readFileSync(join(report.workspace.local, 'notes', 'plan.md'), 'utf8')).toBe(
      readFileSync(join(report.workspace.remote, 'notes', 'plan.md'), 'utf8'),
    );
    expect(existsSync(join(report.workspace.remote, 'stray.txt'))).toBe(false);
    expect(peek(data.dir, 'SELECT path FROM sync_state')).toEqual([{ path: 'notes/plan.md' }]);
    // Kept.
    expect(count(data.dir, 'audit_requests')).toBe(audit);
    expect(
      peek(data.dir, 'SELECT username FROM users ORDER BY id').map((u) => (u as { username: string }).username),
    ).toEqual(['alice', 'bob']);
    const again = await memoryClient(data.dir);
    expect((await again.opsdesk.store.run(userForToken(token)))?.username).toBe('alice');
    expect((await callTool(again.client, 'sync_file', { path: 'notes/plan.md' })).text).toBe(
      'notes/plan.md is already in sync.',
    );
    await again.close();
  });

  it('seeds a directory that never had data', async () => {
    data = tempDataDir();
    await resetDemo(join(data.dir, 'fresh'));
    expect(count(join(data.dir, 'fresh'), 'orders')).toBe(1200);
  });
});
