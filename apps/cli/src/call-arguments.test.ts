import { describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

/**
 * `k=v` values are coerced by the tool's input schema (docs/cli.md): what reaches the server is the
 * value typed, or the command refuses it as a usage error (exit 2) — never a different value sent
 * silently. End to end through the CLI, against a raw-SDK stdio server whose tool echoes the
 * arguments it received; the cases in full are toolArguments' (packages/client arguments.test.ts).
 */
const SERVER = `
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
const server = new Server({ name: 'echo', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async () => ({
  tools: [{ name: 'scale', inputSchema: { type: 'object', properties: {
    replicas: { type: 'integer' }, budget: { type: 'number' }, zip: { type: ['string', 'integer'] },
  } } }],
}));
server.setRequestHandler('tools/call', async (req) => ({
  content: [{ type: 'text', text: JSON.stringify(req.params.arguments) }],
  structuredContent: { status: 'done', received: req.params.arguments },
}));
await server.connect(new StdioServerTransport());
`;
const COMMAND = ['--', process.execPath, '--input-type=module', '-e', SERVER];

async function sent(...words: string[]): Promise<{ code: number; received: unknown; err: string }> {
  const r = await run(['call', 'scale', ...words, '--json', '--revision', '2025-11-25', ...COMMAND]);
  const received = r.code === 0 ? JSON.parse(r.out).result.structuredContent.received : undefined;
  return { code: r.code, received, err: r.err };
}

describe('elicitkit call k=v: the value typed is the value sent, or a usage error', () => {
  it.each([
    ['replicas=9007199254740993', /cannot be sent exactly: it would arrive as 9007199254740992/],
    ['budget=9007199254740993', /cannot be sent exactly: it would arrive as 9007199254740992/],
  ])(
    '%s: a number too long to be exact is refused, not rounded to another number',
    async (word, said) => {
      const r = await sent(word);
      expect(r.received, 'the server received a different number than the one typed').toBeUndefined();
      expect(r.code).toBe(2);
      expect(r.err).toMatch(said);
    },
    60_000,
  );

  it.each(['replicas=0x10', 'replicas=0b101', 'budget=0x10'])(
    '%s: hexadecimal or binary notation is not read as another decimal number',
    async (word) => {
      const r = await sent(word);
      expect(r.received, `"${word}" was sent as a decimal number`).toBeUndefined();
      expect(r.code).toBe(2);
    },
    60_000,
  );

  it('budget=2.50 is sent as the number 2.5 it names', async () => {
    const r = await sent('budget=2.50');
    expect(r.code, r.err).toBe(0);
    expect(r.received).toEqual({ budget: 2.5 });
  }, 60_000);

  it('a string-or-integer value keeps its leading zero (a ZIP code stays "02134")', async () => {
    const r = await sent('zip=02134');
    expect(r.code, r.err).toBe(0);
    expect(r.received, '"02134" was sent as the number 2134').toEqual({ zip: '02134' });
    expect((await sent('zip=2134')).received).toEqual({ zip: 2134 });
  }, 60_000);

  it.each([
    ['--args', '{"budget": 1e-400}', '$.budget 1e-400 cannot be sent exactly: it would arrive as 0'],
    ['--args', '{"budget": 0.1e-330}', 'it would arrive as 0'],
    ['--args', '{"budget": 1e400}', 'it would arrive as null'],
    ['--args', '{"replicas": 123456789012345678901234567890}', 'it would arrive as 1.2345678901234568e+29'],
    ['--args', '{"budget": 2.00000000000000001}', 'it would arrive as 2'],
    ['--args', '{"budget": -0}', 'JSON has no negative zero'],
    ['--args', '{"replicas": 1, "replicas": 2}', '$.replicas is given twice: JSON keeps only the last value'],
    ['--args', '{"zip": "\\ud800"}', '$.zip holds half of a character'],
    ['budget=-0', undefined, 'budget=-0: -0 cannot be sent exactly: JSON has no negative zero'],
  ])(
    '%s %s: refused (exit 2), nothing sent',
    async (first, second, said) => {
      const r = await sent(...(second === undefined ? [first] : [first, second]));
      expect(r.received, 'the server received another value than the one typed').toBeUndefined();
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain(said);
    },
    60_000,
  );

  it('--args spelled otherwise but exact is sent as its value', async () => {
    const r = await sent('--args', '{"budget": 1E-1, "replicas": 2.0e0, "zip": "\\ud83d\\ude00"}');
    expect(r.code, r.err).toBe(0);
    expect(r.received).toEqual({ budget: 0.1, replicas: 2, zip: '😀' });
  }, 60_000);
});
