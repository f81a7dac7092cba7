/**
 * A chat drawing tools from two MCP servers, one of which stops: the other's tools stay listed and
 * callable, the tools panel and the chat turn say which server does not answer and why, the model
 * is offered only the tools that can run, and the stopped server's tools come back when it does.
 * Only when no server answers does listing fail (502). Real SDK servers over loopback HTTP, a real
 * OpenAI-compatible endpoint (a stub streaming chat completions), driven through the route handlers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRestartable } from '../../../test/support/restartable-mcp.js';

/** What the model was offered in each chat completion request: the tools' names. */
const offered: string[][] = [];
const model = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    const request = JSON.parse(body) as { tools?: { function: { name: string } }[] };
    offered.push((request.tools ?? []).map((t) => t.function.name).sort());
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.end(`${chunk({ role: 'assistant', content: 'Nothing to do.' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
  });
});
await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-several-'));
const east = await startRestartable();
const west = await startRestartable();
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'east', url: east.url, revision: '2025-11-25' },
  { name: 'west', url: west.url, revision: '2025-11-25' },
]);
process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
process.env.OPENAI_API_KEY = 'k';
process.env.ELICITKIT_MODEL = 'm-1';

const { newBrowser, turn } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { chatOf, resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  await Promise.all([east.stop(), west.stop()]);
  await new Promise((resolve) => model.close(resolve));
  rmSync(data, { recursive: true, force: true });
});

type Browser = Awaited<ReturnType<typeof newBrowser>>;
type Chunk = Record<string, unknown> & { output?: { text?: string }; errorText?: string; delta?: string };
interface Listing {
  tools?: { name: string; server: string }[];
  unavailable?: { server: string; message: string }[];
  error?: string;
}

const listing = async (b: Browser) => {
  const response = await getTools(new Request('http://localhost/api/tools', { headers: { cookie: b.cookie } }));
  return { status: response.status, body: (await response.json()) as Listing };
};
const servers = (body: Listing) => [...new Set(body.tools?.map((t) => t.server))].sort();
const outputOf = (chunks: Chunk[]) => chunks.find((c) => c.type === 'tool-output-available')?.output;
const textOf = (chunks: Chunk[]) =>
  chunks
    .filter((c) => c.type === 'text-delta')
    .map((c) => c.delta)
    .join('\n');
/** The server's stop breaks the chat's stream; the chat forgets that connection when it sees it. */
const forgets = async (b: Browser, server: string) => {
  const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: b.cookie } }));
  if (!chat) throw new Error('no chat');
  await expect.poll(() => chat.connections.has(server), { timeout: 10_000 }).toBe(false);
};

describe('two servers, one of which stops', () => {
  it('lists both while both answer, with nothing unavailable', async () => {
    const b = await newBrowser();
    const { status, body } = await listing(b);
    expect(status).toBe(200);
    expect(servers(body)).toEqual(['east', 'west']);
    expect(body.unavailable).toEqual([]);
  });

  it('keeps the other server listed and callable, and names the one that does not answer', async () => {
    const b = await newBrowser();
    expect(outputOf((await turn(b, '/west__status')) as Chunk[])?.text).toMatch(/^start \d+$/);
    await west.stop();
    await forgets(b, 'west');
    try {
      const { status, body } = await listing(b);
      expect(status).toBe(200);
      expect(servers(body)).toEqual(['east']);
      expect(body.unavailable).toEqual([
        {
          server: 'west',
          message: `The MCP server "west" (${west.url}) cannot be reached: connection refused (nothing listens there). The request was not sent. Try again once it is running.`,
        },
      ]);

      expect(outputOf((await turn(b, '/east__status')) as Chunk[])?.text).toMatch(/^start \d+$/);
      // A tool of the stopped server: its reason, not "there is no tool".
      const runs = west.runs.status;
      const down = (await turn(b, '/west__status')) as Chunk[];
      expect(textOf(down)).toContain(`"west" (${west.url}) cannot be reached: connection refused`);
      expect(textOf(down)).not.toContain('There is no tool');
      expect(west.runs.status).toBe(runs);
      // A name on no server lists what there is, and what is missing.
      const unknown = textOf((await turn(b, '/nosuch')) as Chunk[]);
      expect(unknown).toContain('There is no tool "nosuch". Tools: east__');
      expect(unknown).toContain(`"west" (${west.url}) cannot be reached: connection refused`);
    } finally {
      await west.start();
    }
    const { body } = await listing(b);
    expect(servers(body)).toEqual(['east', 'west']);
    expect(outputOf((await turn(b, '/west__status')) as Chunk[])?.text).toMatch(/^start \d+$/);
  });

  it('offers the model only the tools that can run, and tells the person which server is missing', async () => {
    const b = await newBrowser();
    await turn(b, 'hello');
    expect(offered.at(-1)?.some((name) => name.startsWith('west__'))).toBe(true);
    await east.stop();
    try {
      const chunks = (await turn(b, 'hello again')) as Chunk[];
      const names = offered.at(-1) ?? [];
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((name) => name.startsWith('west__'))).toBe(true);
      expect(textOf(chunks)).toContain(`"east" (${east.url}) cannot be reached: connection refused`);
      expect(textOf(chunks)).toContain('Nothing to do.');
    } finally {
      await east.start();
    }
  });

  it('fails listing with 502 only when no server answers', async () => {
    const b = await newBrowser();
    await Promise.all([east.stop(), west.stop()]);
    try {
      const { status, body } = await listing(b);
      expect(status).toBe(502);
      // The first server's reason, once: no "Could not reach the MCP server:" in front of it.
      expect(body.error).toMatch(
        /^The MCP server "east" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) cannot be reached: connection refused/,
      );
    } finally {
      await Promise.all([east.start(), west.start()]);
    }
    expect((await listing(b)).status).toBe(200);
  });
});
