import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, count, memoryClient, tempDataDir } from '../../test/harness.js';

let data: ReturnType<typeof tempDataDir>;
let alice: Conn;
beforeAll(async () => {
  data = tempDataDir();
  alice = await memoryClient(data.dir, { user: 'alice' });
});
afterAll(async () => {
  await alice.close();
  data.remove();
});

/**
 * SQLite stops reading a statement at a NUL character: `DELETE … WHERE id < 50\0 AND 0` ran as
 * `DELETE … WHERE id < 50`, unasked (49 rows), while the text sent — the one a client shows for
 * approval — says it deletes nothing. What runs must be the text sent, all of it.
 */
describe('execute_sql: a statement holding a NUL character', () => {
  it('is refused, saying why, and nothing before the NUL runs', async () => {
    const before = count(data.dir, 'order_items');
    const r = await callTool(alice.client, 'execute_sql', { sql: 'DELETE FROM order_items WHERE id < 50\u0000 AND 0' });
    expect(r.status).toBe('rejected');
    expect(r.text).toMatch(/NUL character/);
    expect(count(data.dir, 'order_items')).toBe(before);
    expect(alice.seen).toHaveLength(0);
  });

  it('in a read too: not run as the text before it', async () => {
    const r = await callTool(alice.client, 'execute_sql', { sql: 'SELECT COUNT(*) AS n FROM orders\u0000 WHERE 0' });
    expect(r.status).toBe('rejected');
    expect(r.text).toMatch(/NUL character/);
  });
});
