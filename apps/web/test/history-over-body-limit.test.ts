// @vitest-environment jsdom
/**
 * The page posts its conversation with every turn, and `POST /api/chat` refuses a body over 2 MiB
 * (413). Nothing bounded what turns add to that conversation: a tool result's text is streamed and
 * kept whole. So once the results of one conversation added up past 2 MiB — here three results of
 * 800 KB from an ordinary tool (a file, a query, a log) — every later message of that tab was
 * refused 413 ("The body is larger than 2097152 bytes."): the chat was wedged until "New chat" or a
 * reload. Now the page sends the newest messages that fit (`fitForTurn`), and the next message is
 * taken. The page's own hook in jsdom, its fetch handed to the real route handler, a real stdio
 * server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { act, cleanup, waitFor } from '@testing-library/react';
import { afterAll, expect, it, vi } from 'vitest';

const SERVER = `
const send = (text) => process.stdout.write(text + '\\n');
const reply = (id, result) => send(JSON.stringify({ jsonrpc: '2.0', id, result }));
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined || m.method === undefined) return;
  if (m.method === 'initialize')
    return reply(m.id, { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'files', version: '1.0.0' } });
  if (m.method === 'tools/list')
    return reply(m.id, { tools: [{ name: 'read_log', inputSchema: { type: 'object' } }, { name: 'status', inputSchema: { type: 'object' } }] });
  if (m.method === 'tools/call')
    return reply(m.id, { content: [{ type: 'text', text: m.params.name === 'read_log' ? 'log line\\n'.repeat(90000) : 'All green.' }] });
  if (m.method === 'ping') return reply(m.id, {});
  send(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } }));
});`;

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-history-limit-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'files', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, postChat } = await import('./chat-client');
const { resetState } = await import('../lib/state');
const { renderChatHook } = await import('./chat-hook');

afterAll(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

it('a conversation whose results add up past the turn body limit still takes the next message', async () => {
  const b = await newBrowser();
  const statuses: number[] = [];
  // The page's fetch, answered by the real route handler with the browser's cookie.
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('cookie', b.cookie);
    const response = await postChat(
      new Request(`http://localhost${url}`, { method: 'POST', headers, body: init?.body as string }),
    );
    statuses.push(response.status);
    return response;
  });
  const chat = renderChatHook(b.csrf);
  await waitFor(() => expect(chat()?.chatId).toBeTruthy());
  const say = async (text: string) => {
    await act(async () => {
      await chat()?.sendMessage({ text });
    });
    await waitFor(() => expect(chat()?.busy).toBe(false));
  };
  // Three ordinary results of ~800 KB each (each well under the body limit by itself).
  for (let i = 0; i < 3; i++) await say('/read_log');
  expect(statuses).toEqual([200, 200, 200]);
  await say('/status');
  expect(chat()?.error?.message, 'the next message of the conversation was refused').toBeUndefined();
  expect(statuses.at(-1)).toBe(200);
  // The page still shows the whole conversation: only what it sends was fitted.
  expect(JSON.stringify(chat()?.messages).length).toBeGreaterThan(2 * 1024 * 1024);
}, 60_000);
