/**
 * When a request to a restarted HTTP server is sent again, and when never. A 2025-11-25 server
 * that keeps no standalone stream (HTTP 405 on GET, as the spec allows) gives the chat no sign it
 * restarted, so the chat's next request carries the old session and gets the spec's 404: the
 * request did not run, so it goes once more on a fresh connection. Refused before sending, it is
 * tried once more and then reported; a 2026-07-28 call cut mid-way is reported, never replayed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRestartable } from '../../../test/support/restartable-mcp.js';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-http-resend-'));
// One socket per request: see `keepAlive` in the support server.
const quiet = await startRestartable({ getStream: false, keepAlive: false });
const modern = await startRestartable({ keepAlive: false });
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'quiet', url: quiet.url, revision: '2025-11-25' },
  { name: 'modern', url: modern.url, revision: '2026-07-28' },
]);

const { answer, ask, newBrowser } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { callTool } = await import('../lib/mcp');
const { ServerConnectionError } = await import('../lib/mcp-errors');
const { chatOf, resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  await quiet.stop();
  await modern.stop();
  rmSync(data, { recursive: true, force: true });
});

const newChat = async () => {
  const b = await newBrowser();
  const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: b.cookie } }));
  if (!chat) throw new Error('no chat');
  return { b, chat };
};
const toolNames = async (cookie: string) => {
  const response = await getTools(new Request('http://localhost/api/tools', { headers: { cookie } }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
};

describe('sending again after a restart', () => {
  it('a call that met the old session’s 404 runs once on a fresh connection', async () => {
    const { chat } = await newChat();
    expect((await callTool(chat, 'quiet__status', {})).text).toBe('start 1');
    const held = chat.connections.get('quiet');
    await quiet.stop();
    await quiet.start();
    // Nothing told the chat: it still holds the old connection.
    expect(chat.connections.get('quiet')).toBe(held);
    const runs = quiet.runs.status;
    expect((await callTool(chat, 'quiet__status', {})).text).toBe('start 2');
    expect(quiet.runs.status).toBe(runs + 1);
    expect(chat.connections.get('quiet')).not.toBe(held);
  });

  it('a listing that met the old session’s 404 is asked again and shows the new tools', async () => {
    const { b, chat } = await newChat();
    expect(await toolNames(b.cookie)).not.toContain('quiet__added');
    const held = chat.connections.get('quiet');
    await quiet.stop();
    await quiet.start({ added: true });
    expect(chat.connections.get('quiet')).toBe(held);
    expect(await toolNames(b.cookie)).toContain('quiet__added');
  });

  it('a call refused before sending is tried once more, then reported as not sent', async () => {
    const { chat } = await newChat();
    await callTool(chat, 'quiet__status', {});
    await quiet.stop();
    const runs = quiet.runs.status;
    const error = await callTool(chat, 'quiet__status', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerConnectionError);
    expect(error).toMatchObject({ code: 'SERVER_UNREACHABLE', server: 'quiet' });
    expect((error as Error).message).toBe(
      `The MCP server "quiet" (${quiet.url}) cannot be reached: connection refused (nothing listens there). The request was not sent. Try again once it is running.`,
    );
    expect(quiet.runs.status).toBe(runs);
    await quiet.start();
    expect((await callTool(chat, 'quiet__status', {})).text).toMatch(/^start \d+$/);
  });

  it('a 2026-07-28 call cut by the stop is reported as maybe run, never replayed', async () => {
    const { chat } = await newChat();
    const before = modern.runs.hold;
    const running = callTool(chat, 'modern__hold', {}).catch((e: unknown) => e);
    await modern.held(before + 1);
    await modern.stop();
    const error = await running;
    expect(error).toBeInstanceOf(ServerConnectionError);
    expect(error).toMatchObject({ code: 'SERVER_RESTARTED', server: 'modern' });
    expect((error as Error).message).toContain(`The MCP server "modern" (${modern.url}) restarted`);
    await modern.start();
    expect((await callTool(chat, 'modern__status', {})).text).toBe('start 2');
    expect(modern.runs.hold).toBe(before + 1);
  });

  it('a 2026-07-28 round refused after an earlier round ran is reported as maybe run, not sent again', async () => {
    const { b } = await newChat();
    const before = modern.runs.ask_env;
    const q = await ask(b, '/modern__ask_env');
    // The question came back in the first round's result: nothing is in flight while it is open.
    await modern.stop();
    expect((await answer(b, q.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(200);
    const chunks = (await q.rest) as { type: string; errorText?: string }[];
    expect(chunks.find((c) => c.type === 'tool-output-error')?.errorText).toContain('may or may not have run');
    expect(modern.runs.ask_env).toBe(before + 1);
    await modern.start();
  });
});
