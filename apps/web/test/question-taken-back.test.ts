/**
 * A server may take a question back while its tool call goes on (`notifications/cancelled` for the
 * elicitation request: it no longer needs the answer). The page is told the question was
 * withdrawn, and an answer to it gets 410 — whose words said "the tool call it belonged to has
 * ended" while the call was still running. A real stdio MCP server (raw JSON-RPC lines) that takes
 * its question back when the tools panel lists its tools, and finishes the call when it lists again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

const SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let call;
let takenBack = false;
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined || m.method === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: m.id, result });
  if (m.method === 'initialize')
    return reply({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'ops', version: '1.0.0' } });
  if (m.method === 'tools/list') {
    // Listed while the question is open: take it back; listed again: finish the call.
    if (call !== undefined && !takenBack) {
      takenBack = true;
      send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1000, reason: 'no longer needed' } });
    } else if (call !== undefined) {
      send({ jsonrpc: '2.0', id: call, result: { content: [{ type: 'text', text: 'went on without it' }] } });
      call = undefined;
    }
    return reply({ tools: [{ name: 'deploy', inputSchema: { type: 'object', properties: {} } }] });
  }
  if (m.method === 'tools/call') {
    call = m.id;
    return send({ jsonrpc: '2.0', id: 1000, method: 'elicitation/create', params: { mode: 'form',
      message: 'Deploy order-service to staging? Tick to go ahead.',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', title: 'Go ahead' } } } } });
  }
  if (m.method === 'ping') return reply({});
});`;

const data = mkdtempSync(join(tmpdir(), 'elicitkit-taken-back-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'ops', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, ask, answer } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { resetState, state } = await import('../lib/state');

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

describe('a question its server takes back', () => {
  it('is withdrawn, and a late answer is told so without saying the call ended', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/deploy');
    const list = () => getTools(new Request('http://localhost/api/tools', { headers: { cookie: b.cookie } }));
    expect((await list()).status).toBe(200);
    await vi.waitFor(async () =>
      expect((await state().registry.get(q.id))?.settlement).toEqual({ reason: 'withdrawn' }),
    );
    // The call is still running.
    const late = await answer(b, q.id, { action: 'accept', content: { ok: true } });
    expect(late.status).toBe(410);
    const { error } = (await late.json()) as { error: string };
    expect(error).toContain('withdrawn');
    expect(error).toContain('took it back');
    expect((await list()).status).toBe(200);
    const chunks = await q.rest;
    expect(chunks.filter((c) => c.type === 'data-elicitation').at(-1)).toMatchObject({ data: { status: 'withdrawn' } });
    expect(chunks.find((c) => c.type === 'tool-output-available')).toMatchObject({
      output: { text: 'went on without it' },
    });
  });
});
