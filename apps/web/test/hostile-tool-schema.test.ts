/**
 * A hostile (or merely sloppy) MCP server lists tools whose input schema has a property that is not
 * a schema object (`null`), an `enum` that is not a list, or a `description` that is not text. The
 * SDK accepts any JSON there; drawn by the tools panel, such a schema threw during render and took
 * the whole page down. `GET /api/tools` leaves those tools out and says why; the others are listed
 * and drawn. Real route handler, a real stdio MCP server (raw JSON-RPC), the real <ToolsPanel>.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';

const TOOLS = [
  {
    name: 'ping',
    description: 'A harmless tool.',
    inputSchema: { type: 'object', properties: { who: { type: 'string' } } },
  },
  { name: 'nullprop', inputSchema: { type: 'object', properties: { note: null } } },
  { name: 'stringenum', inputSchema: { type: 'object', properties: { env: { type: 'string', enum: 'prod' } } } },
  {
    name: 'objectdesc',
    inputSchema: { type: 'object', properties: { env: { type: 'string', description: { en: 'x' } } } },
  },
];

const SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const TOOLS = ${JSON.stringify(TOOLS)};
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined || m.method === undefined) return;
  if (m.method === 'initialize')
    return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1.0.0' } } });
  if (m.method === 'tools/list') return send({ jsonrpc: '2.0', id: m.id, result: { tools: TOOLS } });
  if (m.method === 'ping') return send({ jsonrpc: '2.0', id: m.id, result: {} });
  send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } });
});`;

const data = mkdtempSync(join(tmpdir(), 'elicitkit-toolschema-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'hostile', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { resetState } = await import('../lib/state');
const { ToolsPanel } = await import('../components/tools-panel');
const { PAGE_TEXTS } = await import('../components/texts');
type ToolInfo = import('../lib/wire').ToolInfo;

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

async function listing(): Promise<{ tools: ToolInfo[]; unavailable: { server: string; message: string }[] }> {
  const b = await newBrowser();
  const response = await getTools(new Request('http://localhost/api/tools', { headers: { cookie: b.cookie } }));
  expect(response.status).toBe(200);
  return (await response.json()) as { tools: ToolInfo[]; unavailable: { server: string; message: string }[] };
}

const panel = (tools: ToolInfo[]) =>
  renderToString(
    createElement(ToolsPanel, { tools, error: null, disabled: false, onCall: () => {}, texts: PAGE_TEXTS.en }),
  );

describe('a tool schema the server got wrong', () => {
  it('is left out of the listing, and the listing says which and why', async () => {
    const { tools, unavailable } = await listing();
    expect(tools.map((t) => t.name)).toEqual(['ping']);
    expect(unavailable.map((u) => u.message)).toEqual([
      'The tool "nullprop" of server "hostile" has an input schema elicitkit cannot use: inputSchema.properties["note"] is null, not a schema object; it is left out.',
      'The tool "stringenum" of server "hostile" has an input schema elicitkit cannot use: inputSchema.properties["env"].enum is the text "prod", not a list; it is left out.',
      'The tool "objectdesc" of server "hostile" has an input schema elicitkit cannot use: inputSchema.properties["env"].description is an object, not text; it is left out.',
    ]);
    // What is listed draws.
    expect(panel(tools)).toContain('data-tool="ping"');
  });
});
