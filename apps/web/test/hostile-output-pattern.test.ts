/**
 * A configured server's output schema is not trusted code. The SDK client of each chat checks a
 * tool's result against its `outputSchema`; with the SDK's default validator, a `pattern` such as
 * `^(a+)+$` met by forty a's and a '!' held the web app's one thread on one RegExp for hours —
 * every chat of every user stalled. The shared validator runs patterns in linear time: the
 * mismatch is the tool's error at once, and the next turn is served. Real chat route, a real
 * stdio MCP server (raw JSON-RPC lines).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const HOSTILE = `${'a'.repeat(40)}!`;
const SERVER = rawServer({
  tools: [
    {
      name: 'report',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } },
    },
    {
      name: 'labels',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', propertyNames: { pattern: '^(a|a)*$' } },
    },
    {
      name: 'fine',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } },
    },
  ],
  call: `(m, ask, reply) => {
    const hostile = ${JSON.stringify(HOSTILE)};
    const out = m.params.name === 'report' ? { code: hostile }
      : m.params.name === 'labels' ? { [hostile]: 1 } : { code: 'aaa' };
    reply({ content: [{ type: 'text', text: 'done' }], structuredContent: out });
  }`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-hostile-pattern-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'hostile', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, turn } = await import('./chat-client');
const { resetState } = await import('../lib/state');

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

describe('a result against a hostile output-schema pattern', () => {
  it.each(['report', 'labels'])(
    '/%s: the mismatch is the tool’s error at once; the next turn is served',
    async (tool) => {
      const b = await newBrowser();
      const chunks = await turn(b, `/${tool}`);
      const end = chunks.find((c) => c.type === 'tool-output-error' || c.type === 'tool-output-available');
      expect(end?.type).toBe('tool-output-error');
      expect(String((end as { errorText?: string }).errorText)).toContain('output schema');
      const next = await turn(b, '/fine');
      expect(next.find((c) => c.type === 'tool-output-available')).toBeDefined();
    },
    60_000,
  );
});
