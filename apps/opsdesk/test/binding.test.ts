/**
 * The binding corpus (binding.ts), each case on 2025-11-25 (questions pushed) and 2026-07-28
 * (rounds) over real HTTP, by two users: one declines whatever is asked, then the other confirms
 * it. Outcomes are measured from outside the server, rows compared by rowid:
 * - no question came: the shop changed no more than may change unasked;
 * - a question came and was confirmed: no table changed by more rows than it showed (or the bound
 *   it stated), and no table or schema object changed that it did not name;
 * - declined, refused or rejected: nothing changed at all.
 */
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { serveHttp } from '../src/serve-http.js';
import { BINDING_CASES, type BindingCase } from './binding.js';
import { type Conn, httpClient, tempDataDir } from './harness.js';

const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
const UNASKED_ROWS = 100;

type Snapshot = { tables: Map<string, Map<string, string>>; schema: Map<string, string> };

/** Every shop table's rows by rowid, and every schema object's definition, read from the file. */
function snapshot(dataDir: string): Snapshot {
  const db = new BetterSqlite3(join(dataDir, 'shop.db'), { readonly: true, fileMustExist: true });
  try {
    const objects = db
      .prepare(
        "SELECT type, name, coalesce(sql, '') AS sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
      )
      .all() as { type: string; name: string; sql: string }[];
    const tables = new Map<string, Map<string, string>>();
    for (const o of objects.filter((x) => x.type === 'table')) {
      const rows = db.prepare(`SELECT rowid AS _r, * FROM "${o.name}"`).all() as Record<string, unknown>[];
      tables.set(o.name, new Map(rows.map(({ _r, ...row }) => [String(_r), JSON.stringify(row)])));
    }
    return { tables, schema: new Map(objects.map((o) => [o.name, `${o.type}:${o.sql}`])) };
  } finally {
    db.close();
  }
}

/** Rows changed per table (inserted + updated + deleted, by rowid), and schema objects changed. */
function diff(
  a: Snapshot,
  b: Snapshot,
): { rows: Map<string, number>; existing: Map<string, number>; schema: string[]; before: Map<string, number> } {
  const rows = new Map<string, number>();
  /** Rows that were there before and were updated or deleted. */
  const existing = new Map<string, number>();
  const before = new Map<string, number>();
  for (const name of new Set([...a.tables.keys(), ...b.tables.keys()])) {
    const x = a.tables.get(name) ?? new Map();
    const y = b.tables.get(name) ?? new Map();
    before.set(name, x.size);
    let n = 0;
    for (const [k, v] of x) if (y.get(k) !== v) n++;
    if (n > 0) existing.set(name, n);
    for (const k of y.keys()) if (!x.has(k)) n++;
    if (n > 0) rows.set(name, n);
  }
  const schema = [...new Set([...a.schema.keys(), ...b.schema.keys()])].filter(
    (n) => a.schema.get(n) !== b.schema.get(n),
  );
  return { rows, existing, schema, before };
}

/** The most rows per table a question showed: a run's counts (`- \`t\`: 3 rows deleted, …`) or a stated bound (`up to 200 rows of \`t\``). */
function shownRows(message: string): Map<string, number> {
  const shown = new Map<string, number>();
  for (const line of message.split('\n')) {
    const counted = /^- `([^`]+)`: (.*) \(it had \d+\)$/.exec(line);
    if (counted?.[1] && counted[2])
      shown.set(
        counted[1],
        [...counted[2].matchAll(/(\d+) rows?/g)].reduce((n, m) => n + Number(m[1]), 0),
      );
  }
  for (const m of message.matchAll(/(\d+) rows of `([^`]+)`/g)) if (m[2]) shown.set(m[2], Number(m[1]));
  return shown;
}

/** The name a question asks to be typed. */
const typedName = (message: string) => /type `([^`]+)`/.exec(message)?.[1] ?? '';

let served: { close(): Promise<void> } | undefined;
let data: ReturnType<typeof tempDataDir> | undefined;
const open: Conn[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
  await served?.close();
  served = undefined;
  data?.remove();
});

async function start(revision: (typeof REVISIONS)[number]) {
  data = tempDataDir();
  const server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
  served = server;
  const person = async (user: string) => {
    const c = await httpClient(server.url, await server.ownerToken(user), { revision });
    open.push(c);
    return c;
  };
  return { dir: data.dir, person };
}

const accept = (params: Record<string, unknown>) => ({
  action: 'accept' as const,
  content: { understood: true, typedTableName: typedName(String(params.message)) },
});

async function run(c: Conn, sql: string, answer: 'accept' | 'decline') {
  const messages: string[] = [];
  c.script.splice(0, c.script.length);
  // Up to a few questions: on 2026-07-28 a call whose run changed between rounds asks anew.
  for (let i = 0; i < 4; i++)
    c.script.push((params) => {
      messages.push(String(params.message));
      return answer === 'accept' ? accept(params) : { action: 'decline' };
    });
  const r = await callTool(c.client, 'execute_sql', { sql });
  return { ...r, messages };
}

/** Runs `k` as `user` answering `answer`, and checks the outcome against what was shown. */
async function check(dir: string, c: Conn, k: BindingCase, answer: 'accept' | 'decline') {
  for (const sql of k.before ?? []) await callTool(c.client, 'execute_sql', { sql });
  const before = snapshot(dir);
  const r = await run(c, k.sql, answer);
  const changed = diff(before, snapshot(dir));
  const where = `${k.name} → ${r.status}: ${r.text}\n${r.messages.join('\n---\n')}`;
  if (k.expect === 'refused') expect(r.status, where).toBe('rejected');
  if (k.expect === 'asks') expect(r.messages.length, where).toBeGreaterThan(0);
  if (k.expect === 'unasked') expect(r.messages, where).toEqual([]);
  if (r.status !== 'done') {
    expect(changed.rows, where).toEqual(new Map());
    expect(changed.schema, where).toEqual([]);
    return r;
  }
  if (r.messages.length === 0) {
    // Unasked: few rows, no whole table rewritten or emptied, nothing dropped or altered.
    const created = changed.schema.filter((n) => !before.schema.has(n));
    const existing = [...changed.rows].filter(([t]) => !created.includes(t));
    expect(
      existing.reduce((n, [, rows]) => n + rows, 0),
      where,
    ).toBeLessThanOrEqual(UNASKED_ROWS);
    for (const [t, rows] of changed.existing) {
      const had = changed.before.get(t) ?? 0;
      if (had > 0 && !created.includes(t)) expect(rows, `${where}\n${t}: every row`).toBeLessThan(had);
    }
    expect(
      changed.schema.filter((n) => before.schema.has(n)),
      where,
    ).toEqual([]);
    return r;
  }
  const last = r.messages.at(-1) as string;
  const shown = shownRows(last);
  for (const [t, rows] of changed.rows) {
    const allowed = shown.get(t);
    // A table created or dropped by a schema change the question named is covered by naming it.
    if (allowed === undefined && last.includes(`\`${t}\``) && changed.schema.includes(t)) continue;
    expect(allowed, `${where}\n${t} changed (${rows} rows) but was not shown`).toBeDefined();
    expect(rows, `${where}\n${t}`).toBeLessThanOrEqual(allowed as number);
  }
  for (const name of changed.schema) expect(last, `${where}\nschema ${name}`).toContain(`\`${name}\``);
  return r;
}

describe.each(REVISIONS)('what the person confirms is what happens (%s, HTTP)', (revision) => {
  it(`holds at least 30 cases`, () => expect(BINDING_CASES.length).toBeGreaterThanOrEqual(30));

  for (const k of BINDING_CASES) {
    it(k.name, async () => {
      const { dir, person } = await start(revision);
      const [planter, other] = revision === '2025-11-25' ? ['alice', 'bob'] : ['bob', 'alice'];
      const p = await person(planter);
      for (const sql of k.plant ?? []) {
        const planted = await run(p, sql, 'accept');
        expect(planted.status, `${sql}: ${planted.text}`).toBe('done');
      }
      // The other user declines first (nothing may change), then the planter confirms.
      await check(dir, await person(other), k, 'decline');
      await check(dir, p, k, 'accept');
    });
  }
});
