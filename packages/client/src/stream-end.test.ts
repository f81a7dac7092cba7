/**
 * `guardStreamEnds` against the SDK's own client and HTTP transport, in front of a real SDK server
 * whose `tools/call` response stream is ended empty (as a proxy cutting a long call would):
 * guarded, the call fails at once with `STREAM_ENDED_MESSAGE`; unguarded, it waits for its
 * timeout — the upstream gap the guard fills. When the unguarded case fails, the SDK's `request()`
 * settles such a call itself and the guard can go.
 */
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { guardStreamEnds, STREAM_ENDED_MESSAGE } from './stream-end.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

/** A client connected to an SDK server whose `cut` tool's response stream ends without the response. */
async function connected(guard: boolean) {
  let ran = 0;
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'stream-end', version: '1' });
    server.registerTool(
      'cut',
      { description: 'runs; its response never arrives', inputSchema: z.object({}) },
      async () => {
        ran++;
        return { content: [{ type: 'text', text: 'ran' }] };
      },
    );
    server.registerTool('whole', { description: 'answers', inputSchema: z.object({}) }, async () => ({
      content: [{ type: 'text', text: 'whole' }],
    }));
    return server;
  });
  const fetch = async (url: string | URL, init?: RequestInit) => {
    const request = new Request(url, init);
    const body = request.method === 'POST' ? await request.clone().text() : '';
    const response = await handler.fetch(request);
    if (!body.includes('"name":"cut"')) return response;
    // The server ran the call; the stream carrying its response is ended before it.
    await response.body?.cancel();
    return new Response(new ReadableStream({ start: (c) => c.close() }), {
      status: 200,
      headers: { 'content-type': 'text/event-stream', ...Object.fromEntries(response.headers) },
    });
  };
  const transport = new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), { fetch });
  const client = new Client({ name: 'stream-end-test', version: '1' });
  await client.connect(transport);
  if (guard) guardStreamEnds(transport);
  cleanup.push(async () => {
    await client.close();
    await handler.close();
  });
  return { client, ran: () => ran };
}

async function failure(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('the call succeeded');
}

describe('a call whose response stream ends without its response', () => {
  it('guarded: fails at once, saying it may or may not have run (it did)', async () => {
    const { client, ran } = await connected(true);
    const error = await failure(client.callTool({ name: 'cut', arguments: {} }, { timeout: 60_000 }));
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain(STREAM_ENDED_MESSAGE);
    expect(ran()).toBe(1);
    // The connection goes on: the next call is answered.
    expect((await client.callTool({ name: 'whole', arguments: {} })).content).toEqual([
      { type: 'text', text: 'whole' },
    ]);
  });

  it('upstream gap: unguarded, the SDK client waits for the timeout instead', async () => {
    const { client, ran } = await connected(false);
    const error = await failure(client.callTool({ name: 'cut', arguments: {} }, { timeout: 300 }));
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(SdkErrorCode.RequestTimeout);
    expect(ran()).toBe(1);
  });
});
