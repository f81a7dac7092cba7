import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { type Conn, memoryClient, tempDataDir } from '../test/harness.js';

/** The three prompts that carry a decision, in both languages: what is asked must say what is decided. */
describe.each(['en', 'zh'] as const)('prompts that carry the decision (%s)', (locale) => {
  let data: ReturnType<typeof tempDataDir>;
  let c: Conn;
  beforeAll(async () => {
    data = tempDataDir();
    c = await memoryClient(data.dir, { locale });
  });
  afterAll(async () => {
    await c.close();
    data.remove();
  });
  const ask = async (tool: string, args: Record<string, unknown>) => {
    c.script.splice(0, c.script.length, { action: 'decline' });
    const before = c.seen.length;
    const r = await callTool(c.client, tool, args);
    expect(r.status).toBe('declined');
    return String((c.seen[before] as { message: string }).message);
  };

  it('SQL: the statement whole, as it runs, in a block of its own — its lines numbered, what no one sees spelled out — and the rows', async () => {
    const message = await ask('execute_sql', {
      sql: `UPDATE products\n  SET name = '${'n'.repeat(400)}'\n\t-- \u001b[31m`,
    });
    expect(message).toContain(
      `${locale === 'en' ? 'Statement:' : '语句：'}\n\`\`\`\n1 | UPDATE products\n2 |   SET name = '${'n'.repeat(400)}'\n3 | \t-- ⟨U+001B⟩[31m\n\`\`\``,
    );
    expect(message).not.toContain('\u001b');
    expect(message).toContain(
      locale === 'en' ? '- `products`: 50 rows updated (it had 50)' : '- `products`：更新 50 行（原有 50 行）',
    );
  });

  it("SQL: a statement too long to be shown whole is refused in the reader's words, never asked", async () => {
    const before = c.seen.length;
    const r = await callTool(c.client, 'execute_sql', { sql: `UPDATE products SET name = '${'n'.repeat(2_000)}'` });
    expect(c.seen.length).toBe(before);
    expect(r.status).toBe('rejected');
    expect(r.text).toContain(locale === 'en' ? 'This one has 2,029 on 1.' : '该语句有 2029 个字符、1 行');
  });

  it('sync: both sides’ sizes, local times without milliseconds, and a short diff', async () => {
    for (const side of ['local', 'remote'])
      writeFileSync(join(data.dir, 'workspace', side, 'notes/plan.md'), `${side} plan\n`);
    const message = await ask('sync_file', { path: 'notes/plan.md' });
    expect(message).toContain(locale === 'en' ? 'Local: 11 B, modified ' : '本地：11 字节，修改于 ');
    expect(message).toContain(locale === 'en' ? 'Remote: 12 B, modified ' : '远端：12 字节，修改于 ');
    expect(message).toContain('- remote plan\n+ local plan');
    expect(message).not.toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}|\d{4}-\d{2}-\d{2}T/);
  });

  it('production deploy: the version change, or that it is the first', async () => {
    const change = await ask('deploy_service', { service: 'order-service', env: 'prod' });
    expect(change).toContain('v2.3.0 → v2.3.1');
    const first = await ask('deploy_service', { service: 'search-service', env: 'prod' });
    expect(first).toContain(
      locale === 'en' ? 'v0.9.4 (its first production deployment)' : 'v0.9.4，首次部署到生产环境',
    );
  });
});
