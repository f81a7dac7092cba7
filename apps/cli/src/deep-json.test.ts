/**
 * A server's JSON nested deeper than `JSON.stringify` can write (it recurses: a few thousand levels
 * overflow the stack; `JSON.parse` and the SDK read a million). Was: `elicitkit: Maximum call stack
 * size exceeded` and exit 1 — `call --json` after the tool had run, with its result lost; `tools`
 * and `call` for a tool listed beside one with a deep `_meta` or output schema (the list's check for
 * tools named twice wrote every definition out). Now the result is printed whole, on one line past
 * that depth (indented, 20,000 levels would be 400 MB of spaces), and the list is read.
 * A raw line-JSON-RPC stdio server writing each message as text.
 */
import { describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const DEPTH = 20_000;
const SERVER = `
const deep = '{"a":'.repeat(${DEPTH}) + '1' + '}'.repeat(${DEPTH});
const where = process.argv.at(-1);
const send = (text) => process.stdout.write(text + '\\n');
const reply = (id, result) => send('{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":' + result + '}');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined || m.method === undefined) return;
  if (m.method === 'initialize')
    return reply(m.id, '{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"deep","version":"1.0.0"}}');
  if (m.method === 'tools/list')
    return reply(m.id, '{"tools":[{"name":"status","inputSchema":{"type":"object"}},{"name":"odd","inputSchema":{"type":"object"}' +
      (where === 'tool-meta' ? ',"_meta":' + deep : '') + '}]}');
  if (m.method === 'tools/call') {
    const text = '{"type":"text","text":"done"' + (where === 'content-meta' ? ',"_meta":' + deep : '') + '}';
    return reply(m.id, '{"content":[' + text + ']' +
      (where === 'structured' ? ',"structuredContent":' + deep : '') +
      (where === 'result-meta' ? ',"_meta":' + deep : '') + '}');
  }
  send('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"error":{"code":-32601,"message":"no"}}');
});
`;
const server = (where: string) => ['--', process.execPath, '-e', SERVER, where];

/** How deep `value` nests, walked without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    deepest = Math.max(deepest, d);
    if (typeof v === 'object' && v !== null) for (const item of Object.values(v)) stack.push([item, d + 1]);
  }
  return deepest;
}

describe('JSON a server nests deeper than JSON.stringify writes', () => {
  it.each([
    ['structured content', 'structured', (r: Record<string, unknown>) => r.structuredContent],
    ["the result's _meta", 'result-meta', (r: Record<string, unknown>) => r._meta],
    [
      "a content block's _meta",
      'content-meta',
      (r: Record<string, unknown>) => (r.content as { _meta: unknown }[])[0]?._meta,
    ],
  ])('call --json prints the result whole (%s), on one line, exit 0', async (_, where, part) => {
    const r = await run(['call', 'odd', '--json', ...server(where)]);
    expect(r.err).not.toMatch(/stack/);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')).toHaveLength(1);
    // As long as what the server sent, give or take the envelope: not its square.
    expect(r.out.length).toBeLessThan(DEPTH * 6 + 1_000);
    const printed = JSON.parse(r.out) as { result: Record<string, unknown> };
    expect(depthOf(part(printed.result))).toBe(DEPTH);
    expect((printed.result.content as { text: string }[])[0]?.text).toBe('done');
  });

  it.each([1_001, DEPTH])(
    'arguments typed %s levels deep are refused before anything is sent (exit 2), not left to overflow the SDK',
    async (levels) => {
      const args = `{"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
      const r = await run(['call', 'odd', '--args', args, ...server('none')]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(
        /^elicitkit call: --args: \$\.x(\[0\])+.*… nests deeper than 1000 levels of objects and arrays/m,
      );
      expect(r.err).not.toMatch(/Calling|stack/);
      expect(r.out).toBe('');
      // 1,000 levels, the bound itself, are sent.
      const sent = await run([
        'call',
        'odd',
        '--args',
        `{"x":${'['.repeat(999)}${']'.repeat(999)}}`,
        ...server('none'),
      ]);
      expect(sent.code, sent.err).toBe(0);
      expect(sent.out).toBe('done');
    },
  );

  it('call --json of a shallow result is indented as before', async () => {
    const r = await run(['call', 'odd', '--json', ...server('none')]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('\n  "result": {\n    "content": [');
  });

  it('a tool listed beside one with a deep _meta: tools lists both, call calls it, doctor judges both', async () => {
    const tools = await run(['tools', '--json', ...server('tool-meta')]);
    expect(tools.code, tools.err).toBe(0);
    const listed = JSON.parse(tools.out) as { tools: { name: string; _meta?: unknown }[]; duplicates: unknown[] };
    expect(listed.tools.map((t) => t.name)).toEqual(['status', 'odd']);
    expect(depthOf(listed.tools[1]?._meta)).toBe(DEPTH);
    expect(listed.duplicates).toEqual([]);
    const human = await run(['tools', ...server('tool-meta')]);
    expect(human.code, human.err).toBe(0);
    expect(human.out).toMatch(/^odd$/m);
    const call = await run(['call', 'status', ...server('tool-meta')]);
    expect(call.code, call.err).toBe(0);
    expect(call.out).toBe('done');
    const doctor = await run(['doctor', '--yes', '--json', '--revision', '2025-11-25', ...server('tool-meta')]);
    expect(doctor.err).not.toMatch(/stack/);
    const report = JSON.parse(doctor.out) as { tools: { name: string }[]; summary: { stopped: string[] } };
    expect(report.tools.map((t) => t.name)).toEqual(['status', 'odd']);
    expect(report.summary.stopped).toEqual([]);
  }, 60_000);
});
