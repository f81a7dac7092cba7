import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import type { Opsdesk } from '../src/opsdesk.js';
import { shownWhole } from '../src/shorten.js';
import { STATEMENT_SHOWN } from '../src/tools/execute-sql.js';
import { fingerprint } from './fingerprint.js';
import { type Conn, memoryClient, peekShop, tempDataDir } from './harness.js';
import { SQL_CORPUS } from './sql-corpus.js';

let data: ReturnType<typeof tempDataDir>;
let c: Conn & { opsdesk: Opsdesk };
let opsdeskBefore: ReturnType<typeof fingerprint>;
let filesBefore: string[];
const opsdeskFile = () => join(data.dir, 'opsdesk.db');
const shopFile = () => join(data.dir, 'shop.db');
// SQLite's -wal and -shm files come and go with checkpoints; they are not new content.
const files = () =>
  readdirSync(data.dir)
    .filter((f) => !/-(wal|shm|journal)$/.test(f))
    .sort();

beforeAll(async () => {
  data = tempDataDir();
  // The attacker of issue 11: bob, who may see search-service only.
  c = await memoryClient(data.dir, { user: 'bob', sqlTimeoutMs: 2000 });
  opsdeskBefore = fingerprint(opsdeskFile());
  filesBefore = files();
});
afterAll(async () => {
  await c.close();
  data.remove();
});

describe(`execute_sql: the adversarial corpus (${SQL_CORPUS.length} statements, as bob)`, () => {
  it('holds at least 40 statements', () => {
    expect(SQL_CORPUS.length).toBeGreaterThanOrEqual(40);
  });

  for (const [i, k] of SQL_CORPUS.entries()) {
    it(`#${i + 1} ${k.sql.slice(0, 90)} → ${k.status}`, async () => {
      const sql = k.sql.replaceAll('{dir}', data.dir);
      const shopBefore = fingerprint(shopFile(), /^$/);
      c.script.splice(0, c.script.length, ...(k.answer ? [k.answer] : []));
      const seenBefore = c.seen.length;
      const r = await callTool(c.client, 'execute_sql', { sql });
      const question = c.seen[seenBefore] as { message: string } | undefined;

      expect(r.status, r.text).toBe(k.status);
      if (k.says) expect(r.text).toMatch(k.says);
      if (k.answer) {
        expect(question, 'a question was expected').toBeDefined();
        if (k.asks) expect(question?.message).toMatch(k.asks);
        const shown = shownWhole(sql, STATEMENT_SHOWN);
        expect(question?.message).toContain(`Statement:\n\`\`\`\n${'text' in shown ? shown.text : ''}\n\`\`\``);
      } else {
        expect(question, `no question was expected, got: ${question?.message}`).toBeUndefined();
      }
      if (k.structured) expect(r.structured).toMatchObject(k.structured);

      // opsdesk's own database: not a row, not a schema object changed; no file appeared anywhere.
      expect(fingerprint(opsdeskFile())).toEqual(opsdeskBefore);
      expect(files()).toEqual(filesBefore);
      if (k.shop === 'same') expect(fingerprint(shopFile(), /^$/)).toEqual(shopBefore);
      else expect(peekShop(data.dir, k.shop.sql)).toEqual(k.shop.is);
    });
  }

  it('leaves the shop connection as opsdesk set it up', async () => {
    const settings = await c.opsdesk.shop.settings();
    expect(settings, JSON.stringify(settings)).toMatchObject({
      query_only: 0,
      trusted_schema: 0,
      foreign_keys: 1,
      writable_schema: 0,
      max_page_count: 65_536,
      // temp appears once anything touched it (ALTER TABLE ... RENAME does); it stays empty.
      databases: expect.arrayContaining(['main']),
      tempObjects: 0,
      inTransaction: false,
    });
    expect((settings.databases as string[]).filter((d) => d !== 'main' && d !== 'temp')).toEqual([]);
  });
});
