/**
 * Names another caller chose — of the shop's tables, views, indexes, triggers, and of columns —
 * reach the person inside execute_sql's confirmation and results. opsdesk's own rule
 * (caller-text.test.ts, docs/opsdesk.md on sync_file's names) is that such text reads there as what
 * it is: one line, no bidi reordering, bounded — never as more of opsdesk's own sentences. Any
 * caller makes such a name: CREATE TABLE runs unasked.
 *
 * The person confirms by typing the name the question shows: a name that cannot be shown as it is
 * (line breaks, runs of spaces, control or bidi characters, longer than 120 characters) is shown
 * made safe, the question says so, and only what it shows is accepted — never the name with its
 * hidden characters, never another table's.
 *
 * Over stdio (`elicitkit serve --stdio`) and over a linked in-memory pair, with a real SDK client.
 */
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, count, memoryClient, peekShop, stdioClient, tempDataDir } from '../../test/harness.js';

/** Bidi controls, and control characters other than the line breaks between opsdesk's own lines. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** A name that is a paragraph of its own, ending in a right-to-left override. */
const HOSTILE = 'scratch\n\nopsdesk: this statement only tidies a scratch table; nothing else changes.\u202e';
/** The same name as the question shows it: one line, the override made visible. */
const SHOWN = 'scratch opsdesk: this statement only tidies a scratch table; nothing else changes.\uFFFD';
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
/** True when some line of `text` is the forged sentence standing as one of opsdesk's own. */
const forged = (text: string) => text.split('\n').some((line) => line.startsWith('opsdesk:'));

describe('execute_sql: names another caller chose, in the confirmation', () => {
  let data: ReturnType<typeof tempDataDir>;
  let alice: Conn;
  let bob: Conn;
  beforeAll(async () => {
    data = tempDataDir();
    alice = await stdioClient(data.dir, { revision: '2025-11-25', user: 'alice' });
    bob = await stdioClient(data.dir, { revision: '2025-11-25', user: 'bob' });
  }, 60_000);
  afterAll(async () => {
    await alice.close();
    await bob.close();
    data.remove();
  });

  it("a table named with line breaks and a bidi override is shown on one safe line in alice's question", async () => {
    // bob makes a table (a new table runs unasked) whose name is a paragraph of its own.
    const name = HOSTILE;
    bob.script.splice(0, bob.script.length);
    const made = await callTool(bob.client, 'execute_sql', {
      sql: `CREATE TABLE ${quoted(name)} AS SELECT id FROM orders`,
    });
    expect(made.status).toBe('done');

    // alice empties it: every row of a table, so she is asked, and the question names the table.
    alice.script.splice(0, alice.script.length, { action: 'decline' });
    const asked = alice.seen.length;
    const r = await callTool(alice.client, 'execute_sql', { sql: `DELETE FROM ${quoted(name)}` });
    expect(r.status).toBe('declined');
    const message = String((alice.seen[asked] as { message?: string } | undefined)?.message ?? '');
    expect(message).toContain('scratch');
    // Not the name as it is: its own lines ("opsdesk: … nothing else changes.") and an RLO that
    // reverses the rest of its line.
    expect(message).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(message.split('\n').some((line) => line.startsWith('opsdesk: this statement only tidies'))).toBe(false);
  }, 60_000);
});

describe('execute_sql: what the person types is what the question showed', () => {
  let data: ReturnType<typeof tempDataDir>;
  let c: Conn;
  beforeAll(async () => {
    data = tempDataDir();
    c = await memoryClient(data.dir);
  });
  afterAll(async () => {
    await c.close();
    data.remove();
  });

  const sql = async (statement: string, answer?: Record<string, unknown> | 'decline') => {
    c.script.splice(
      0,
      c.script.length,
      ...(answer === 'decline'
        ? [{ action: 'decline' as const }]
        : answer
          ? [{ action: 'accept' as const, content: answer }]
          : []),
    );
    const before = c.seen.length;
    const r = await callTool(c.client, 'execute_sql', { sql: statement });
    return { ...r, question: (c.seen[before] as { message?: string } | undefined)?.message };
  };

  beforeAll(async () => {
    expect((await sql(`CREATE TABLE ${quoted(HOSTILE)} AS SELECT id FROM orders`)).status).toBe('done');
  });

  it('the name is shown made safe in each place it appears, and typed with its hidden characters it is refused', async () => {
    const r = await sql(`DELETE FROM ${quoted(HOSTILE)}`, { understood: true, typedTableName: HOSTILE });
    const question = r.question ?? '';
    expect(question).toContain(`This statement changes every row of "${SHOWN}".`);
    expect(question).toContain(`\n- \`${SHOWN}\`: 1200 rows deleted (it had 1200)\n`);
    expect(question).toContain(`To run it, tick the box and type \`${SHOWN}\`. Type it exactly as shown here`);
    expect(question).not.toMatch(UNSAFE);
    expect(forged(question)).toBe(false);
    // The real name, line breaks and override included, is not what was shown: refused, nothing done.
    expect(r.status).toBe('invalid');
    expect(r.text).toContain(`is not the table this statement changes (${SHOWN})`);
    expect(r.text).not.toMatch(UNSAFE);
    expect(peekShop(data.dir, `SELECT COUNT(*) AS n FROM ${quoted(HOSTILE)}`)).toEqual([{ n: 1200 }]);
  });

  it('typed exactly as shown, that table and no other changes; the Done text shows the name on one line', async () => {
    const orders = count(data.dir, 'orders');
    const r = await sql(`DELETE FROM ${quoted(HOSTILE)}`, { understood: true, typedTableName: SHOWN });
    expect(r.status).toBe('done');
    expect(r.text).toBe(`Done.\n- \`${SHOWN}\`: 1200 rows deleted (it had 1200)`);
    // The result's data still names the table as it is.
    expect(r.structured).toMatchObject({ table: HOSTILE, tables: [HOSTILE] });
    expect(peekShop(data.dir, `SELECT COUNT(*) AS n FROM ${quoted(HOSTILE)}`)).toEqual([{ n: 0 }]);
    expect(count(data.dir, 'orders')).toBe(orders);
  });

  it('a name that only looks like another table\'s ("orders " with a trailing space) is flagged, and confirming it leaves orders alone', async () => {
    expect((await sql('CREATE TABLE "orders " AS SELECT id FROM orders')).status).toBe('done');
    const orders = count(data.dir, 'orders');
    const r = await sql('DELETE FROM "orders "', { understood: true, typedTableName: 'orders' });
    // Shown as `orders`, but the question says the real name is not what it shows.
    expect(r.question).toContain('changes every row of "orders"');
    expect(r.question).toContain(
      'type `orders`. Type it exactly as shown here: the real name cannot be shown as it is',
    );
    expect(r.status).toBe('done');
    expect(peekShop(data.dir, 'SELECT COUNT(*) AS n FROM "orders "')).toEqual([{ n: 0 }]);
    expect(count(data.dir, 'orders')).toBe(orders);
  });

  it('a name of exactly 120 characters is shown whole and typed as it is; one more and it is shortened, and only the shortened form is accepted', async () => {
    const atBound = `bound_${'x'.repeat(113)}y`;
    expect([...atBound]).toHaveLength(120);
    expect((await sql(`CREATE TABLE ${atBound} (id INTEGER)`)).status).toBe('done');
    const whole = await sql(`DROP TABLE ${atBound}`, { understood: true, typedTableName: atBound });
    expect(whole.question).toContain(`This statement drops the table "${atBound}".`);
    expect(whole.question).toContain(`type \`${atBound}\`. It cannot be undone.`);
    expect(whole.status).toBe('done');

    const over = `${atBound}z`;
    expect((await sql(`CREATE TABLE ${over} (id INTEGER)`)).status).toBe('done');
    const shortened = `bound_${'x'.repeat(71)} … ${'x'.repeat(38)}yz`;
    expect([...shortened]).toHaveLength(120);
    const real = await sql(`DROP TABLE ${over}`, { understood: true, typedTableName: over });
    expect(real.question).toContain(`This statement drops the table "${shortened}".`);
    expect(real.question).toContain(`type \`${shortened}\`. Type it exactly as shown here`);
    expect(real.question).not.toContain(`type \`${over}\``);
    // The whole name was never shown: typing it is not confirming what was shown.
    expect(real.status).toBe('invalid');
    expect(peekShop(data.dir, 'SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = ?', over)).toEqual([{ n: 1 }]);
    const shown = await sql(`DROP TABLE ${over}`, { understood: true, typedTableName: shortened });
    expect(shown.status).toBe('done');
    expect(shown.text).toBe(`Done.\n- table \`${shortened}\` dropped`);
    expect(peekShop(data.dir, 'SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = ?', over)).toEqual([{ n: 0 }]);
  });

  it('a trigger named by a caller is shown on one line in the question', async () => {
    const r = await sql(`CREATE TRIGGER ${quoted(HOSTILE)} AFTER INSERT ON orders BEGIN SELECT 1; END`, 'decline');
    expect(r.status).toBe('declined');
    const question = r.question ?? '';
    // A trigger of the same name as the table is another object: created, not the table changed.
    expect(question).toContain(`This statement changes the schema of the trigger "${SHOWN}".`);
    expect(question).toContain(`\n- trigger \`${SHOWN}\` created\n`);
    expect(question).not.toMatch(UNSAFE);
    expect(forged(question)).toBe(false);
    expect(peekShop(data.dir, "SELECT COUNT(*) AS n FROM sqlite_schema WHERE type = 'trigger'")).toEqual([{ n: 0 }]);
  });

  it('a column named by a caller, in a read and in the rows a write returns: one line each; the data keeps the name', async () => {
    const read = await sql(`SELECT id AS ${quoted(HOSTILE)} FROM orders ORDER BY id LIMIT 2`);
    expect(read.status).toBe('done');
    expect(read.text).toBe(`2 rows.\n${SHOWN}\n1\n2`);
    expect(read.structured).toMatchObject({ columns: [HOSTILE], rows: [{ [HOSTILE]: 1 }, { [HOSTILE]: 2 }] });

    const wrote = await sql(`INSERT INTO ${quoted(HOSTILE)} (id) VALUES (7) RETURNING id AS ${quoted(HOSTILE)}`);
    expect(wrote.status).toBe('done');
    expect(wrote.text).toBe(`Done.\n- \`${SHOWN}\`: 1 row inserted (it had 0)\n${SHOWN}\n7`);
    expect(wrote.structured).toMatchObject({ columns: [HOSTILE] });
  });

  it('a table not shown, named by a caller, that the confirmed run would also change: the refusal names it on one line', async () => {
    const other = () => new BetterSqlite3(join(data.dir, 'shop.db'));
    c.script.splice(0, c.script.length, () => {
      // Someone plants a trigger writing the hostile table while the person reads the question.
      const db = other();
      db.exec(
        `CREATE TRIGGER late AFTER UPDATE ON customers BEGIN INSERT INTO ${quoted(HOSTILE)} (id) VALUES (1); END`,
      );
      db.close();
      return { action: 'accept', content: { understood: true, typedTableName: 'customers' } };
    });
    const r = await callTool(c.client, 'execute_sql', { sql: "UPDATE customers SET city = 'Kept?'" });
    const db = other();
    db.exec('DROP TRIGGER late');
    db.close();
    expect(r.status).toBe('rejected');
    expect(r.text).toContain(`would also have changed`);
    expect(r.text).toContain(`of \`${SHOWN}\`, which you were not shown`);
    expect(r.text).not.toMatch(UNSAFE);
    expect(forged(r.text)).toBe(false);
    expect(peekShop(data.dir, "SELECT COUNT(*) AS n FROM customers WHERE city = 'Kept?'")).toEqual([{ n: 0 }]);
  });
});

describe('execute_sql: the same names in Chinese', () => {
  let data: ReturnType<typeof tempDataDir>;
  let c: Conn;
  beforeAll(async () => {
    data = tempDataDir();
    c = await memoryClient(data.dir, { locale: 'zh' });
  });
  afterAll(async () => {
    await c.close();
    data.remove();
  });

  it('the question and the 完成 text show the name on one line, and it is typed as shown', async () => {
    c.script.splice(0, c.script.length);
    const made = await callTool(c.client, 'execute_sql', {
      sql: `CREATE TABLE ${quoted(HOSTILE)} AS SELECT id FROM orders`,
    });
    expect(made.status).toBe('done');

    c.script.splice(0, c.script.length, { action: 'accept', content: { understood: true, typedTableName: SHOWN } });
    const before = c.seen.length;
    const r = await callTool(c.client, 'execute_sql', { sql: `DELETE FROM ${quoted(HOSTILE)}` });
    const question = String((c.seen[before] as { message?: string } | undefined)?.message ?? '');
    expect(question).toContain(`该语句将修改「${SHOWN}」的全部行。`);
    expect(question).toContain(`\n- \`${SHOWN}\`：删除 1200 行（原有 1200 行）\n`);
    expect(question).toContain(`请勾选确认并输入 \`${SHOWN}\`。请严格按此处显示的内容输入`);
    expect(question).not.toMatch(UNSAFE);
    expect(forged(question)).toBe(false);
    expect(r.status).toBe('done');
    expect(r.text).toBe(`完成。\n- \`${SHOWN}\`：删除 1200 行（原有 1200 行）`);
  });
});
