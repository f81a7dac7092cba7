/**
 * A shop process lost once it has committed a write, before its answer reaches opsdesk (killed by
 * the system at that moment: `test/shop-dies-after-commit.mjs`, loaded into every shop process).
 * Was: "the shop process stopped", a refusal saying nothing was done, beside a write that was
 * kept — and a person told so sends it again. Now the result says the outcome is unknown and that
 * it was not run again. Over stdio (`elicitkit serve --stdio`) with a real SDK client.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, stdioClient, tempDataDir } from '../../test/harness.js';

const HOOK = fileURLToPath(new URL('../../test/shop-dies-after-commit.mjs', import.meta.url));

describe('execute_sql: a write whose shop process is lost after its COMMIT', () => {
  let data: ReturnType<typeof tempDataDir>;
  let alice: Conn;
  beforeAll(async () => {
    data = tempDataDir();
    alice = await stdioClient(data.dir, {
      revision: '2025-11-25',
      user: 'alice',
      // opsdesk itself has no IPC channel, so the hook acts only in its shop processes.
      env: { NODE_OPTIONS: `--import ${HOOK}` },
    });
  }, 60_000);
  afterAll(async () => {
    await alice.close();
    data.remove();
  });

  const cityOf = async (id: number) =>
    (await callTool(alice.client, 'execute_sql', { sql: `SELECT city FROM customers WHERE id = ${id}` })).structured
      ?.rows;

  it('run unasked: the outcome is unknown, not refused, and the write is there', async () => {
    const r = await callTool(alice.client, 'execute_sql', { sql: "UPDATE customers SET city = 'Oslo' WHERE id = 1" });
    expect(r.status).toBe('rejected');
    expect(r.structured?.outcome).toBe('unknown');
    expect(r.text).toContain('may or may not have been kept');
    expect(r.text).not.toContain('stopped: the shop process stopped');
    expect(await cityOf(1)).toEqual([{ city: 'Oslo' }]);
  });

  it('after the person confirmed it: the same, once', async () => {
    alice.script.splice(0, alice.script.length);
    alice.script.push({ action: 'accept', content: { understood: true, typedTableName: 'order_items' } });
    const r = await callTool(alice.client, 'execute_sql', { sql: 'DELETE FROM order_items' });
    expect(r.status).toBe('rejected');
    expect(r.structured?.outcome).toBe('unknown');
    const left = await callTool(alice.client, 'execute_sql', { sql: 'SELECT COUNT(*) AS n FROM order_items' });
    expect(left.structured?.rows).toEqual([{ n: 0 }]);
  });
});
