/**
 * Troubleshooting row 13 over HTTP: a chat's MCP server (an `ELICITKIT_SERVERS` entry with a
 * `url`, 2025-11-25 with a session) stops and starts again on the same port. The chat drops the
 * broken connection when its stream breaks, its next turn connects afresh and sees the tools the
 * server declares now; a call cut by the stop reports that it may have run and is never replayed;
 * a question of the old connection ends withdrawn; a tool error changes nothing. Real SDK, real
 * HTTP on loopback, driven through the route handlers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { startRestartable } from '../../../test/support/restartable-mcp.js';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-http-restart-'));
const server = await startRestartable();
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([{ name: 'restartable', url: server.url, revision: '2025-11-25' }]);

const { answer, ask, newBrowser, turn } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { chatOf, resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  await server.stop();
  rmSync(data, { recursive: true, force: true });
});

type Browser = Awaited<ReturnType<typeof newBrowser>>;
type Chunk = Record<string, unknown> & { output?: { text?: string; isError?: boolean }; errorText?: string };

const chatFor = async (b: Browser) => {
  const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: b.cookie } }));
  if (!chat) throw new Error('no chat');
  return chat;
};
const toolNames = async (b: Browser) => {
  const response = await getTools(new Request('http://localhost/api/tools', { headers: { cookie: b.cookie } }));
  return { status: response.status, body: (await response.json()) as { tools?: { name: string }[]; error?: string } };
};
const outputOf = (chunks: Chunk[]) => chunks.find((c) => c.type === 'tool-output-available')?.output;
const errorOf = (chunks: Chunk[]) =>
  chunks.find((c) => c.type === 'tool-output-error')?.errorText ?? chunks.find((c) => c.type === 'error')?.errorText;
/** The server's stop breaks the chat's stream; the chat forgets the connection when it sees that. */
const dropped = (b: Browser) =>
  expect.poll(async () => (await chatFor(b)).connections.size, { timeout: 10_000 }).toBe(0);

describe('an HTTP server that restarts under a chat', () => {
  it('the next turn connects afresh and sees the tools the server declares now', async () => {
    const b = await newBrowser();
    expect(outputOf((await turn(b, '/status')) as Chunk[])?.text).toBe('start 1');
    expect((await toolNames(b)).body.tools?.map((t) => t.name)).not.toContain('added');
    await server.stop();
    await dropped(b);
    await server.start({ added: true });
    expect(outputOf((await turn(b, '/status')) as Chunk[])?.text).toBe('start 2');
    expect((await toolNames(b)).body.tools?.map((t) => t.name)).toContain('added');
    expect(outputOf((await turn(b, '/added')) as Chunk[])?.text).toBe('added');
    // And a tool removed across the next restart is gone from the list.
    await server.stop();
    await dropped(b);
    await server.start();
    expect((await toolNames(b)).body.tools?.map((t) => t.name)).not.toContain('added');
  });

  it('during the outage a turn says the server cannot be reached; after it the next turn works', async () => {
    const b = await newBrowser();
    expect(outputOf((await turn(b, '/status')) as Chunk[])?.text).toMatch(/^start \d+$/);
    await server.stop();
    await dropped(b);
    const runs = server.runs.status;
    expect(errorOf((await turn(b, '/status')) as Chunk[])).toContain('cannot be reached');
    const listing = await toolNames(b);
    expect(listing.status).toBe(502);
    expect(listing.body.error).toContain('cannot be reached');
    expect(server.runs.status).toBe(runs);
    await server.start();
    expect(outputOf((await turn(b, '/status')) as Chunk[])?.text).toMatch(/^start \d+$/);
  });

  it('a call cut by the stop says it may have run, and is never replayed', async () => {
    const b = await newBrowser();
    const before = server.runs.hold;
    const running = turn(b, '/hold');
    await server.held(before + 1);
    await server.stop();
    const chunks = (await running) as Chunk[];
    expect(errorOf(chunks)).toContain('may or may not have run');
    expect(errorOf(chunks)).toContain('Check before retrying');
    await server.start();
    expect(outputOf((await turn(b, '/status')) as Chunk[])?.text).toMatch(/^start \d+$/);
    expect(server.runs.hold).toBe(before + 1);
  });

  it('a question of the old connection ends withdrawn, and a late answer is told so', async () => {
    const b = await newBrowser();
    const q = await ask(b, '/ask_env');
    await server.stop();
    const chunks = (await q.rest) as Chunk[];
    const settled = chunks.filter((c) => c.type === 'data-elicitation').at(-1) as { data?: { status?: string } };
    expect(settled.data?.status).toBe('withdrawn');
    expect(errorOf(chunks)).toContain('may or may not have run');
    expect((await answer(b, q.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(410);
    // Told so even when the answer would not fit the form: that it is gone comes first.
    const unfit = await answer(b, q.id, { action: 'accept', content: { env: 'qa' } });
    expect(unfit.status).toBe(410);
    expect(await unfit.json()).toEqual({
      error:
        'This question was withdrawn: no answer is awaited any more (its server took it back, or the tool call or chat it belonged to has ended).',
    });
    await server.start();
    const again = await ask(b, '/ask_env');
    expect((await answer(b, again.id, { action: 'accept', content: { env: 'prod' } })).status).toBe(200);
    expect(outputOf((await again.rest) as Chunk[])?.text).toBe('env prod');
  });

  it('a tool error and a protocol error keep the connection', async () => {
    const b = await newBrowser();
    await turn(b, '/status');
    const chat = await chatFor(b);
    const before = chat.connections.get('restartable');
    expect(before).toBeDefined();
    const failed = outputOf((await turn(b, '/fail')) as Chunk[]);
    expect(failed?.isError).toBe(true);
    const { callTool } = await import('../lib/mcp');
    // An unknown tool is the server's JSON-RPC error, sent over a working connection.
    await expect(callTool(chat, 'no_such_tool', {})).rejects.toBeInstanceOf(ProtocolError);
    expect(chat.connections.get('restartable')).toBe(before);
  });
});
