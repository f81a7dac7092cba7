/**
 * Every text a tool takes from its caller is bounded by its schema, and refused past the bound by
 * name before any work: a service name of megabytes, each new one remembered for the caller's next
 * call, held the server's memory until it ran out (60 calls of 3.9 MB held 240 MB).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { type Conn, memoryClient, tempDataDir } from '../test/harness.js';
import { openDatabase } from './db/open.js';
import { remembered } from './db/remembered.js';

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

describe('arguments are bounded', () => {
  it('every string argument of every tool has a maximum length, and one past it is refused by name, unasked', async () => {
    const { tools } = await c.client.listTools();
    const strings = tools.flatMap((tool) =>
      Object.entries(
        (tool.inputSchema.properties ?? {}) as Record<string, { type?: string; maxLength?: number; enum?: unknown[] }>,
      )
        // A choice is bounded by its values.
        .filter(([, schema]) => schema.type === 'string' && schema.enum === undefined)
        .map(([name, schema]) => ({ tool: tool.name, name, max: schema.maxLength })),
    );
    expect(strings.map((s) => `${s.tool}.${s.name}`)).toEqual(
      expect.arrayContaining(['deploy_service.service', 'sync_file.path', 'execute_sql.sql', 'weekly_report.project']),
    );
    for (const { tool, name, max } of strings) {
      expect(max, `${tool}.${name}`).toBeGreaterThan(0);
      const asked = c.seen.length;
      const r = await callTool(c.client, tool, { [name]: 'x'.repeat((max as number) + 1) });
      expect(r.status, `${tool}.${name}`).toBe('invalid');
      expect(r.text).toContain(name);
      expect(c.seen.length).toBe(asked);
    }
  });

  it('a service name at the bound is looked up and refused as unknown, as any', async () => {
    const { tools } = await c.client.listTools();
    const deploy = tools.find((t) => t.name === 'deploy_service');
    const max = (deploy?.inputSchema.properties?.service as { maxLength: number } | undefined)?.maxLength ?? 0;
    expect(max).toBeGreaterThan(0);
    const r = await callTool(c.client, 'deploy_service', { service: 's'.repeat(max), env: 'dev' });
    expect(r.status).toBe('rejected');
  });
});

describe('what is remembered per caller and service is bounded by the size of its keys', () => {
  it('long keys make the memo start again: an answer remembered before them is read again', () => {
    const db = openDatabase(data.dir);
    try {
      let reads = 0;
      const first = () => remembered(db, 'first', () => ({ n: ++reads }));
      first();
      first();
      expect(reads).toBe(1);
      // Well under the count of answers it keeps, but past the characters of keys.
      for (let i = 0; i < 4; i++) remembered(db, `${i}${'k'.repeat(100_000)}`, () => ({}));
      first();
      expect(reads).toBe(2);
    } finally {
      db.close();
    }
  });
});
