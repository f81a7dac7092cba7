/**
 * Troubleshooting row 13 from the web app's side: when a chat's stdio server exits (a restart),
 * the chat drops that connection and the next use starts the server again and reads what it
 * declares now — the tool list is never served from the dead connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { nodeArgs } from '../../../test/support/children.js';

const dir = mkdtempSync(join(tmpdir(), 'elicitkit-web-reconnect-'));
const QUIRKY = fileURLToPath(new URL('../../cli/test/quirky-stdio.ts', import.meta.url));
process.env.ELICITKIT_DATA = dir;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  {
    name: 'changing',
    command: [process.execPath, ...nodeArgs(QUIRKY, 'changing', join(dir, 'starts'))],
    revision: '2025-11-25',
  },
]);

const { callTool, listTools } = await import('../lib/mcp');
const { chatOf, createChat } = await import('../lib/state');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('after the server exits, the next listing starts it again and shows what it declares now', async () => {
  const opened = await createChat('127.0.0.1');
  if (!opened.ok) throw new Error('no chat');
  const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: `ek_chat=${opened.chat.id}` } }));
  if (!chat) throw new Error('chat not found');
  const names = async () => (await listTools(chat)).tools.map((t) => t.name).sort();
  expect(await names()).toEqual(['deploy', 'status', 'stop']); // start 1
  await callTool(chat, 'stop', {});
  // The pipe closes when the process exits: the chat forgets the connection.
  await expect.poll(() => chat.connections.size, { timeout: 10_000 }).toBe(0);
  expect(await names()).toEqual(['status', 'stop']); // start 2
  await Promise.all([...chat.connections.values()].map(async (c) => (await c).close()));
}, 60_000);
