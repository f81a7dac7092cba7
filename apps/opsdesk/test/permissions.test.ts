import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type Step } from '../../../test/support/mcp.js';
import type { Opsdesk } from '../src/opsdesk.js';
import { type Conn, memoryClient, tempDataDir } from './harness.js';

/** docs/opsdesk.md's tool × user × outcome table, read from that file itself: what is written is what runs. */
const DOC = fileURLToPath(new URL('../../../docs/opsdesk.md', import.meta.url));

interface Row {
  tool: string;
  args: Record<string, unknown>;
  expected: Record<string, { status: string; services?: string[] }>;
}

const USERS = { alice: 'alice', bob: 'bob', 'local owner': 'olivia' } as const;

function readTable(): Row[] {
  const text = readFileSync(DOC, 'utf8');
  const table = /<!-- permissions:start -->\n([\s\S]*?)<!-- permissions:end -->/.exec(text)?.[1];
  if (!table) throw new Error('docs/opsdesk.md has no permissions table');
  const [header, , ...lines] = table.trim().split('\n');
  const columns = (header ?? '')
    .split('|')
    .map((c) => c.trim())
    .slice(1, -1);
  return lines.map((line) => {
    const cells = line
      .split('|')
      .map((c) => c.trim())
      .slice(1, -1);
    const expected: Row['expected'] = {};
    for (const [i, name] of columns.entries()) {
      if (i < 2) continue;
      const [status = '', list] = (cells[i] ?? '').split(':').map((s) => s.trim());
      expected[name] = { status, ...(list ? { services: list.split(',').map((s) => s.trim()) } : {}) };
    }
    return {
      tool: (cells[0] ?? '').replaceAll('`', ''),
      args: JSON.parse((cells[1] ?? '').replaceAll('`', '')) as Record<string, unknown>,
      expected,
    };
  });
}

/** How the scripted person answers: a prod deploy with the approved ticket, a report with the first project offered. */
const answer: Step = (params) => {
  const schema = params.requestedSchema as { properties: Record<string, { oneOf?: { const: string }[] }> };
  if ('ticket' in schema.properties) return { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } };
  const first = schema.properties.project?.oneOf?.[0]?.const;
  return { action: 'accept', content: first ? { project: first } : {} };
};

const rows = readTable();
const conns = new Map<string, Conn & { opsdesk: Opsdesk }>();
const dirs: ReturnType<typeof tempDataDir>[] = [];

beforeAll(async () => {
  for (const [column, user] of Object.entries(USERS)) {
    const dir = tempDataDir();
    dirs.push(dir);
    // The local owner's account is made before the client starts as it (its id is looked up then).
    const c = await memoryClient(dir.dir, { user, localOwner: column === 'local owner' });
    conns.set(column, c);
  }
});
afterAll(async () => {
  for (const c of conns.values()) await c.close();
  for (const d of dirs) d.remove();
});

describe('the permission table in docs/opsdesk.md, row by row', () => {
  it('has a row for every tool but register_user', () => {
    expect(new Set(rows.map((r) => r.tool))).toEqual(
      new Set(['deploy_service', 'list_deployments', 'weekly_report', 'execute_sql', 'sync_file']),
    );
  });

  for (const [i, row] of rows.entries()) {
    for (const column of Object.keys(USERS)) {
      const want = row.expected[column];
      it(`row ${i + 1}: ${row.tool} ${JSON.stringify(row.args)} as ${column} → ${want?.status}`, async () => {
        const c = conns.get(column) as Conn;
        c.script.splice(0, c.script.length, answer, answer);
        const seen = c.seen.length;
        const r = await callTool(c.client, row.tool, row.args);
        expect(r.status, r.text).toBe(want?.status);
        if (want?.status === 'rejected' && column === 'bob') {
          // Refused before anything is asked, and without saying whether the service exists.
          expect(c.seen.length).toBe(seen);
          const asked = String(row.args.service ?? row.args.project ?? '');
          const other = asked ? r.text.replaceAll(asked, '…') : r.text;
          expect(other).not.toMatch(/order-service|payment-service|user-service/);
        }
        if (want?.services) {
          const question = c.seen[seen] as {
            requestedSchema: { properties: { project?: { oneOf: { const: string }[] } } };
          };
          const listed =
            row.tool === 'weekly_report'
              ? question.requestedSchema.properties.project?.oneOf.map((o) => o.const)
              : [...new Set(((r.structured?.deployments ?? []) as { service: string }[]).map((d) => d.service))].sort();
          expect(listed).toEqual(want.services);
        }
      });
    }
  }
});
