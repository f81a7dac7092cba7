/**
 * A server's JSON nested deeper than `JSON.stringify` writes (it recurses: a few thousand levels
 * overflow the stack; `JSON.parse` and the SDK read a million). Was: a structured result 20,000
 * levels deep ended its call as "Maximum call stack size exceeded"; one tool with a deep `_meta`, or
 * an input schema too deep for the SDK's check, or a tool the SDK refuses (a description that is a
 * number), lost the server's whole tool list ("could not list its tools: …"). Now the chat leaves
 * out what nests past `MAX_JSON_DEPTH` (the result's structured content, the tool) and says so in
 * the page's language; the rest is listed, called and shown. Real route handlers, a real stdio
 * server writing each message as text.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const DEPTH = 20_000;
const SERVER = `
const deep = '{"a":'.repeat(${DEPTH}) + '1' + '}'.repeat(${DEPTH});
const schema = '{"type":"object","properties":{"a":'.repeat(2000) + '{"type":"string"}' + '}}'.repeat(2000);
const send = (text) => process.stdout.write(text + '\\n');
const reply = (id, result) => send('{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":' + result + '}');
const TOOLS = [
  '{"name":"status","inputSchema":{"type":"object"}}',
  '{"name":"report","inputSchema":{"type":"object"}}',
  '{"name":"meta_deep","inputSchema":{"type":"object"},"_meta":' + deep + '}',
  '{"name":"output_deep","inputSchema":{"type":"object"},"outputSchema":' + schema + '}',
  '{"name":"input_deep","inputSchema":' + schema + '}',
  '{"name":"numbered","description":5,"inputSchema":{"type":"object"}}',
];
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined || m.method === undefined) return;
  if (m.method === 'initialize')
    return reply(m.id, '{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"deep","version":"1.0.0"}}');
  if (m.method === 'tools/list') return reply(m.id, '{"tools":[' + TOOLS.join(',') + ']}');
  if (m.method === 'tools/call')
    return reply(m.id, m.params.name === 'report'
      ? '{"content":[{"type":"text","text":"Weekly report ready."}],"structuredContent":{"status":"done","rows":' + deep + '}}'
      : '{"content":[{"type":"text","text":"All green."}],"structuredContent":{"status":"ok"}}');
  if (m.method === 'ping') return reply(m.id, '{}');
  send('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"error":{"code":-32601,"message":"no"}}');
});`;

const data = mkdtempSync(join(tmpdir(), 'elicitkit-deep-json-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'deep', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, turn } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { resetState } = await import('../lib/state');
const { MAX_JSON_DEPTH } = await import('../lib/depth');
type ToolInfo = import('../lib/wire').ToolInfo;

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

async function listing(
  language?: string,
): Promise<{ tools: ToolInfo[]; unavailable: { server: string; message: string }[] }> {
  const b = await newBrowser();
  const headers: Record<string, string> = { cookie: b.cookie, ...(language ? { 'accept-language': language } : {}) };
  const response = await getTools(new Request('http://localhost/api/tools', { headers }));
  expect(response.status).toBe(200);
  return (await response.json()) as { tools: ToolInfo[]; unavailable: { server: string; message: string }[] };
}

describe('JSON a server nests deeper than the chat carries', () => {
  it('the tools whose definitions nest too deep, or that the SDK refuses, are left out and said; the others are listed', async () => {
    expect(MAX_JSON_DEPTH).toBe(100);
    const { tools, unavailable } = await listing();
    expect(tools.map((t) => t.name)).toEqual(['status', 'report']);
    const said = unavailable.map((u) => u.message);
    for (const name of ['meta_deep', 'output_deep', 'input_deep'])
      expect(said).toContain(
        `The tool "${name}" of "deep" has a definition nested deeper than 100 levels of objects and arrays: the chat cannot carry it; it is left out.`,
      );
    expect(said).toContain('The tool "numbered" of "deep" is not a tool as MCP defines one; it is left out.');
    expect(said).toHaveLength(4);
    const zh = await listing('zh-CN');
    expect(zh.tools.map((t) => t.name)).toEqual(['status', 'report']);
    expect(zh.unavailable.map((u) => u.message)).toContain(
      '“deep”的工具“meta_deep”的定义中对象和数组嵌套超过 100 层：对话无法承载它；已将其略去。',
    );
  });

  it('a result whose structured content nests too deep: its text is shown with a note, the structured part left out', async () => {
    const b = await newBrowser();
    const chunks = await turn(b, '/report');
    const output = chunks.find((c) => c.type === 'tool-output-available') as
      | { output: Record<string, unknown> }
      | undefined;
    expect(output, JSON.stringify(chunks).slice(0, 500)).toBeDefined();
    expect(output?.output.text).toBe(
      "Weekly report ready.\n[The server's structured result nests deeper than 100 levels of objects and arrays: the chat leaves it out; its text is above.]",
    );
    expect(output?.output).not.toHaveProperty('structured');
    // The chat goes on: the next call is shown with its structured status.
    const next = await turn(b, '/status');
    const fine = next.find((c) => c.type === 'tool-output-available') as
      | { output: Record<string, unknown> }
      | undefined;
    expect(fine?.output).toMatchObject({ text: 'All green.', status: 'ok', structured: { status: 'ok' } });
  });
});
