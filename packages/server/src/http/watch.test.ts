/**
 * `watchResponse` on real web streams, as the SDK's transport makes them (a stream it enqueues to
 * and closes, never waiting for its reader): every chunk passes in order, and the end is told once
 * — finished when the stream has been read to its end, dropped when the request's signal aborts,
 * the body is cancelled or the stream errors, the transport's stream then being cancelled.
 */
import { describe, expect, it } from 'vitest';
import { watchResponse } from './watch.js';

const bytes = (s: string) => new TextEncoder().encode(s);

function transportResponse() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancelled: unknown[] = [];
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel(reason) {
      cancelled.push(reason ?? 'cancelled');
    },
  });
  const response = new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  return { response, controller, cancelled };
}

function watched() {
  const t = transportResponse();
  const abort = new AbortController();
  const request = new Request('http://127.0.0.1/mcp', { method: 'POST', body: '{}', signal: abort.signal });
  const ends: boolean[] = [];
  const response = watchResponse(t.response, request, (dropped) => ends.push(dropped));
  return { ...t, abort, ends, watched: response };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('watchResponse', () => {
  it('passes every chunk in order, keeps status and headers, and ends once as finished', async () => {
    const w = watched();
    expect(w.watched.status).toBe(200);
    expect(w.watched.headers.get('content-type')).toBe('text/event-stream');
    const text = w.watched.text();
    w.controller.enqueue(bytes('one '));
    await tick();
    w.controller.enqueue(bytes('two '));
    w.controller.enqueue(bytes('three'));
    w.controller.close();
    expect(await text).toBe('one two three');
    expect(w.ends).toEqual([false]);
    w.abort.abort(); // after the end: nothing more is told
    await tick();
    expect(w.ends).toEqual([false]);
  });

  it("the request's signal aborting is a drop: told once, and the transport's stream is cancelled", async () => {
    const w = watched();
    const reader = w.watched.body?.getReader();
    w.controller.enqueue(bytes('question'));
    expect(new TextDecoder().decode((await reader?.read())?.value)).toBe('question');
    w.abort.abort();
    expect(w.ends).toEqual([true]);
    expect(w.cancelled).toHaveLength(1);
    expect((await reader?.read())?.done).toBe(true);
    w.abort.abort();
    expect(w.ends).toEqual([true]);
  });

  it('the body cancelled by its reader is a drop, and cancels the transport’s stream with the reason', async () => {
    const w = watched();
    w.controller.enqueue(bytes('question'));
    await w.watched.body?.cancel('gone');
    expect(w.ends).toEqual([true]);
    expect(w.cancelled).toEqual(['gone']);
  });

  it('the transport’s stream erroring is a drop, and errors the body', async () => {
    const w = watched();
    const text = w.watched.text();
    w.controller.error(new Error('broken'));
    await expect(text).rejects.toThrow();
    expect(w.ends).toEqual([true]);
  });

  it('a request already aborted ends it at once as dropped', async () => {
    const t = transportResponse();
    const abort = new AbortController();
    abort.abort();
    const request = new Request('http://127.0.0.1/mcp', { method: 'POST', body: '{}', signal: abort.signal });
    const ends: boolean[] = [];
    watchResponse(t.response, request, (dropped) => ends.push(dropped));
    expect(ends).toEqual([true]);
    expect(t.cancelled).toHaveLength(1);
  });
});

/**
 * Why `watchResponse` exists, held against the SDK itself: its Web-standard transport does not
 * follow the request's signal, so a client that drops a tool call's response stream leaves the
 * call running (its own signal never aborts). When this test fails, the SDK has closed the gap, and
 * `watchResponse`'s drop detection can be retired.
 */
describe('upstream gap: the SDK transport does not watch the request signal', () => {
  it('a tool call whose request is aborted keeps running, its signal not aborted', async () => {
    const { McpServer, WebStandardStreamableHTTPServerTransport } = await import('@modelcontextprotocol/server');
    const server = new McpServer({ name: 'gap', version: '1' });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let signal: AbortSignal | undefined;
    server.registerTool('wait', { description: 'waits until its call is aborted' }, async (ctx) => {
      signal = ctx.mcpReq.signal;
      started();
      await new Promise((resolve) => signal?.addEventListener('abort', resolve));
      return { content: [] };
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'gap' });
    await server.connect(transport);
    const post = (body: unknown, init: RequestInit = {}) =>
      transport.handleRequest(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
            ...(init.signal ? { 'mcp-session-id': 'gap' } : {}),
          },
          body: JSON.stringify(body),
          ...init,
        }),
      );
    const initialized = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    expect(initialized.status).toBe(200);
    const abort = new AbortController();
    const response = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait', arguments: {} } },
      { signal: abort.signal },
    );
    expect(response.status).toBe(200);
    await running;
    abort.abort();
    for (let i = 0; i < 10; i++) await tick();
    expect(signal?.aborted).toBe(false);
    await server.close();
  });
});
