/**
 * The app's own opsdesk restarting under a chat: the chat speaks 2026-07-28 to its HTTP handler
 * in process with no stream open between turns, so nothing tells it; its next request is refused
 * by the closed handler (as a closed port would refuse it), the chat drops the connection and
 * connects afresh — to the opsdesk started again — and the turn works. Through the route handlers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-opsdesk-restart-'));
process.env.ELICITKIT_DATA = data;

const { newBrowser, turn } = await import('./chat-client');
const { chatOf, resetState } = await import('../lib/state');
const { opsdeskHost, stopOpsdesk } = await import('../lib/opsdesk');
afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

type Chunk = { type: string; output?: { text?: string; status?: string } };

it('after the bundled opsdesk restarts, the chat’s next turn reaches the new one', async () => {
  const b = await newBrowser();
  const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: b.cookie } }));
  if (!chat) throw new Error('no chat');
  const first = (await turn(b, '/list_deployments')) as Chunk[];
  expect(first.find((c) => c.type === 'tool-output-available')?.output?.status).toBe('done');
  const before = (await opsdeskHost()).url;
  const held = chat.connections.get('opsdesk');
  await stopOpsdesk();
  const again = (await turn(b, '/list_deployments')) as Chunk[];
  expect(again.find((c) => c.type === 'tool-output-available')?.output?.status).toBe('done');
  expect((await opsdeskHost()).url).not.toBe(before);
  expect(chat.connections.get('opsdesk')).not.toBe(held);
});
