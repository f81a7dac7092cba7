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

const sql = (text: string, typedTableName?: string) => {
  if (typedTableName !== undefined)
    alice.script.push({ action: 'accept', content: { understood: true, typedTableName } });
  return callTool(alice.client, 'execute_sql', { sql: text });
};
const rows = (table: string) => peekShop<{ n: number }>(data.dir, `SELECT COUNT(*) AS n FROM "${table}"`)[0]?.n;

/**
 * SQLite folds the case of ASCII letters only: `Äpfel` and `äpfel` are two tables. The typed
 * confirmation compared names with JavaScript's toLowerCase, so typing the other table's name
 * confirmed wiping this one.
 */
describe('execute_sql: the typed name compares as SQLite compares names', () => {
  it('the name of another table that differs by a non-ASCII letter’s case does not confirm', async () => {
    for (const t of ['Äpfel', 'äpfel'])
      expect((await sql(`CREATE TABLE "${t}" AS SELECT id FROM customers`)).status).toBe('done');
    const r = await sql('DELETE FROM "Äpfel"', 'äpfel');
    expect(r.status).toBe('invalid');
    expect(r.text).toMatch(/is not the table this statement changes \(Äpfel\)/);
    expect(rows('Äpfel')).toBe(200);
    expect(rows('äpfel')).toBe(200);
  });

  it('ASCII letters in any case still name the table, as in SQL', async () => {
    const r = await sql('DELETE FROM "Äpfel"', 'ÄPFEL');
    expect(r.status).toBe('done');
    expect(rows('Äpfel')).toBe(0);
    expect(rows('äpfel')).toBe(200);
  });
});
