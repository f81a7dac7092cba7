import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, peekShop, tempDataDir } from '../../test/harness.js';

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

const run = (sql: string, answers: NonNullable<Parameters<typeof memoryClient>[1]>['script'] = []) => {
  alice.script.splice(0, alice.script.length, ...answers);
  return callTool(alice.client, 'execute_sql', { sql });
};

/**
 * The statement count follows where SQLite ends a statement (complete.c): a trigger's body ends
 * only at `; END`, so a CASE … END inside it is not the end of the trigger, and the words TRIGGER
 * and BEGIN outside a CREATE TRIGGER start no body.
 */
describe('execute_sql: one statement as SQLite counts it', () => {
  it('a trigger whose body holds CASE … END is one statement: asked about, and made once confirmed', async () => {
    const sql =
      "CREATE TRIGGER orders_status_guard BEFORE UPDATE ON orders BEGIN SELECT CASE WHEN new.status = 'lost' THEN RAISE(ABORT, 'no') END; END";
    const r = await run(sql, [
      { action: 'accept', content: { understood: true, typedTableName: 'orders_status_guard' } },
    ]);
    expect(r.text).not.toMatch(/one statement per call/);
    expect(r.status).toBe('done');
    expect(peekShop(data.dir, "SELECT name FROM sqlite_schema WHERE type = 'trigger'")).toEqual([
      { name: 'orders_status_guard' },
    ]);
  });

  it('columns named trigger and begin start no trigger body: two statements are refused as two', async () => {
    const r = await run('SELECT 1 AS trigger, 2 AS begin; DELETE FROM order_items');
    expect(r.status).toBe('rejected');
    expect(r.text).toBe('execute_sql runs one statement per call; this SQL holds 2. Send them one at a time.');
  });
});
