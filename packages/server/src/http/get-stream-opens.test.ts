/**
 * A GET's SSE stream (the standalone stream a 2025 client opens after `initialize`, or a
 * resumption) is open from the start: its headers reach the client at once, before anything is
 * sent on it. Node writes a response's headers only with its first byte, and the first thing such
 * a stream carries may be the transport's keep-alive (`keepAliveMs`, here 15 s on): until then
 * the SDK client's GET had no response, and a proxy timing out response headers would have cut it. Both adapters, and the
 * stream then carries what the server sends as before.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { ADAPTERS, type Adapter, listenerOf } from '../../test/loopback.js';
import { createElicitkit } from '../kit.js';
import { done } from '../results.js';
import { defineTool } from '../tool.js';
import { createHttpHandler } from './handler.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

const echo = defineTool({
  name: 'echo',
  description: 'echo',
  inputSchema: z.object({}),
  forms: {},
  async run() {
    return done('ok');
  },
});

async function serve(adapter: Adapter) {
  const kit = createElicitkit();
  const servers: McpServer[] = [];
  const handler = createHttpHandler(
    () => {
      const server = kit.createServer({ name: 'opens', version: '1' }, [echo]);
      servers.push(server);
      return server;
    },
    { keepAliveMs: 15_000 },
  );
  const node = createServer(listenerOf(handler, adapter));
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  cleanup.push(async () => {
    await handler.close();
    node.closeAllConnections();
    node.close();
  });
  return { url: new URL(`http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`), servers };
}

/**
 * Fails when `promise` has not settled in 5 s: the stream's first keep-alive comes at 15 s, so a
 * slow host cannot make a right stream fail here, only a stream whose headers wait for it.
 */
function soon<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no headers before the first keep-alive`)), 5_000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe.each(ADAPTERS)('a GET stream opens at once (%s adapter)', (adapter) => {
  it("the SDK client's standalone stream gets its headers before anything is sent on it, then carries what the server sends", async () => {
    const { url, servers } = await serve(adapter);
    let opened: (response: Response) => void = () => {};
    const standalone = new Promise<Response>((resolve) => {
      opened = resolve;
    });
    const tracing: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if ((init?.method ?? 'GET') === 'GET') opened(response);
      return response;
    };
    const client = new Client({ name: 'opens', version: '1' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(url, { fetch: tracing }));
    cleanup.push(() => client.close());
    const response = await soon(standalone, 'the standalone GET');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);

    // What the server sends outside any request goes on that stream, and the client reads it.
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => resolve());
    });
    const server = servers.at(-1) as McpServer;
    server.sendToolListChanged();
    await soon(changed, 'the notification on the standalone stream');
    expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('a raw GET gets its headers at once; its first bytes, if any, are an SSE comment', async () => {
    const { url } = await serve(adapter);
    const init = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id') as string;
    await init.text();
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const stop = new AbortController();
    cleanup.push(async () => stop.abort());
    const response = await soon(
      fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal: stop.signal }),
      'a raw GET',
    );
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(r, 200))]);
    if (first && !first.done) expect(new TextDecoder().decode(first.value)).toMatch(/^:[^\n]*\n\n$/);
  });
});
