/**
 * `/tool …` commands through the real chat route and opsdesk: a quoted SQL statement reaches
 * execute_sql whole, and JSON that does not parse is told in the chat's terms, not the CLI's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-command-'));
process.env.ELICITKIT_DATA = data;
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, turn } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

describe('/tool commands in the chat', () => {
  it('passes a quoted value whole: /execute_sql sql="SELECT COUNT(*) FROM orders"', async () => {
    const b = await newBrowser();
    const chunks = await turn(b, '/execute_sql sql="SELECT COUNT(*) FROM orders"');
    expect(chunks.find((c) => c.type === 'tool-input-available')).toMatchObject({
      toolName: 'execute_sql',
      input: { sql: 'SELECT COUNT(*) FROM orders' },
    });
    expect(chunks.find((c) => c.type === 'tool-output-available')).toMatchObject({
      output: { status: 'done', structured: { columns: ['COUNT(*)'], rowCount: 1 } },
    });
  });

  it('says JSON that does not parse is not valid JSON, without --args', async () => {
    const b = await newBrowser();
    const text = (await turn(b, '/execute_sql {bad json'))
      .filter((c) => c.type === 'text-delta')
      .map((c) => c.delta)
      .join('');
    expect(text).toMatch(/^Cannot call execute_sql: the arguments are not valid JSON/);
    expect(text).not.toContain('--args');
  });

  // Deeper than the chat's stream can write (JSON.stringify recurses): the turn ended with
  // "Maximum call stack size exceeded". (A value given as key=value: command.test.ts.)
  it('says arguments nested too deep are, and sends nothing', async () => {
    const line = (deep: string) => `/execute_sql {"sql": ${deep}}`;
    const b = await newBrowser();
    for (const depth of [101, 20_000]) {
      const chunks = await turn(b, line(`${'['.repeat(depth)}${']'.repeat(depth)}`));
      const text = chunks
        .filter((c) => c.type === 'text-delta')
        .map((c) => c.delta)
        .join('');
      expect(text, `${depth}`).toMatch(/^Cannot call \w+: the arguments are nested more than 100 levels deep/);
      expect(chunks.filter((c) => c.type === 'error' || String(c.type).startsWith('tool-'))).toEqual([]);
    }
    // As deep as the limit is still sent (and refused by the tool, not the chat).
    const at = await turn(b, line(`${'['.repeat(99)}${']'.repeat(99)}`));
    expect(at.find((c) => c.type === 'tool-input-available')).toBeDefined();
  });
});
