/**
 * One large tool result used to erase the whole saved conversation: `capHistory`
 * (components/history.ts) walked from the newest message and stopped at the first that did not
 * fit, so a newest message over the cap by itself (a server answering with 300 KB of text) left
 * nothing saved. Such a message is left out; the older ones are kept as far as they fit. Real chat
 * route, a real stdio MCP server (raw JSON-RPC lines), the real `capHistory`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const SERVER = rawServer({
  tools: [
    { name: 'big', inputSchema: { type: 'object', properties: {} } },
    { name: 'small', inputSchema: { type: 'object', properties: {} } },
  ],
  call: `(m, ask, reply) => reply({ content: [{ type: 'text',
    text: m.params.name === 'big' ? 'row\\n'.repeat(75000) : 'Deployed order-service to prod.' }] })`,
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-history-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'hostile', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, turn } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { capHistory } = await import('../components/history');
type ChatMessage = import('../lib/wire').ChatMessage;

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

/** The user's line and the assistant's message for one command turn, as the page holds them. */
async function exchange(b: Awaited<ReturnType<typeof newBrowser>>, n: number, command: string): Promise<ChatMessage[]> {
  const chunks = await turn(b, command);
  const input = chunks.find((c) => c.type === 'tool-input-available') as Record<string, unknown>;
  const output = chunks.find((c) => c.type === 'tool-output-available') as Record<string, unknown>;
  expect(output).toBeDefined();
  return [
    { id: `u${n}`, role: 'user', parts: [{ type: 'text', text: command }] },
    {
      id: `a${n}`,
      role: 'assistant',
      parts: [
        {
          type: 'dynamic-tool',
          toolName: String(input.toolName),
          toolCallId: String(input.toolCallId),
          state: 'output-available',
          input: input.input,
          output: output.output,
        },
      ],
    },
  ] as ChatMessage[];
}

describe('saving the conversation after a large result', () => {
  it('keeps the earlier messages that fit', async () => {
    const b = await newBrowser();
    const messages = [...(await exchange(b, 1, '/small')), ...(await exchange(b, 2, '/small'))];
    messages.push(...(await exchange(b, 3, '/big')));
    expect(JSON.stringify(messages.at(-1)).length).toBeGreaterThan(256 * 1024);
    const saved = capHistory(messages);
    // It used to be [] — the whole conversation forgotten at the next reload.
    expect(saved.map((m) => m.id)).toEqual(expect.arrayContaining(['u1', 'a1', 'u2', 'a2', 'u3']));
  });
});
