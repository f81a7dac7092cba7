/**
 * A 2025 client's answer to a question (a JSON-RPC result response POSTed to its session) behind
 * `createHttpHandler`, over real HTTP through either Node adapter: every answer is handed to the
 * SDK transport's `handleRequest`, which makes its own checks — so it is refused exactly as the
 * transport refuses it (a bad `Accept`, a protocol version the server does not speak, a closed
 * session) and delivered otherwise, `_meta` or not. The client here is `fetch`, so each header can
 * be chosen.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { legacySession, sseMessages } from '../../../../test/support/sse.js';
import { createStore, fixtureTools } from '../../test/fixture-tools.js';
import { ADAPTERS, listenerOf, loopback } from '../../test/loopback.js';
import { createElicitkit } from '../kit.js';
import { createHttpHandler } from './handler.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

/** POSTs the transport's `handleRequest` was given whose body is a JSON-RPC response. */
function watchTransport(): { responses: number } {
  const seen = { responses: 0 };
  const original = WebStandardStreamableHTTPServerTransport.prototype.handleRequest;
  vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest').mockImplementation(function (
    this: WebStandardStreamableHTTPServerTransport,
    request,
    options,
  ) {
    const body = options?.parsedBody as Record<string, unknown> | undefined;
    if (body && typeof body === 'object' && ('result' in body || 'error' in body)) seen.responses++;
    return original.call(this, request, options);
  });
  return seen;
}

/** An initialized 2025-11-25 session with a `deploy` call waiting on its question. */
async function asked(s: { url: string }) {
  const { post, sessionId } = await legacySession(s.url);
  const call = await post({
    id: 1,
    method: 'tools/call',
    params: { name: 'deploy', arguments: { service: 'order-service' } },
  });
  const stream = sseMessages(call);
  const question = (await stream.next()) as { id: number; method: string };
  expect(question.method).toBe('elicitation/create');
  return {
    /** Posts the answer to the question, with these headers over the session's. */
    answer: (result: Record<string, unknown>, headers: Record<string, string> = {}) =>
      post({ id: question.id, result }, headers),
    /** The call's own response, once it comes. */
    result: async () => (await stream.next()) as { id: number; result: Record<string, unknown> },
    delete: () =>
      fetch(s.url, {
        method: 'DELETE',
        headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      }),
  };
}

const ACCEPT = { action: 'accept', content: { env: 'dev' } };

describe.each(ADAPTERS)('a posted answer behind createHttpHandler (%s adapter)', (adapter) => {
  async function serve() {
    const s = await loopback({ adapter });
    cleanup.push(() => s.close());
    return s;
  }

  it('reaches the question through the transport, and gets its 202', async () => {
    const s = await serve();
    const transport = watchTransport();
    const call = await asked(s);
    const posted = await call.answer(ACCEPT);
    expect(posted.status).toBe(202);
    expect(await posted.text()).toBe('');
    const { id, result } = await call.result();
    expect(id).toBe(1);
    expect(result.structuredContent).toMatchObject({
      status: 'done',
      deployment: { service: 'order-service', env: 'dev' },
    });
    expect(transport.responses).toBe(1);
    expect(await s.log.response('env')).toMatchObject({ action: 'accept' });
  });

  it('delivers an answer whose result carries _meta through the transport too', async () => {
    const s = await serve();
    const transport = watchTransport();
    const call = await asked(s);
    expect((await call.answer({ ...ACCEPT, _meta: { note: 'x' } })).status).toBe(202);
    expect((await call.result()).result.structuredContent).toMatchObject({ status: 'done' });
    expect(transport.responses).toBe(1);
  });

  it('refuses an Accept without text/event-stream as the transport does (406), and the question stays open', async () => {
    const s = await serve();
    const call = await asked(s);
    const refused = await call.answer(ACCEPT, { accept: 'application/json' });
    expect(refused.status).toBe(406);
    expect(await refused.json()).toMatchObject({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: 'Not Acceptable: Client must accept both application/json and text/event-stream',
      },
      id: null,
    });
    expect((await call.answer(ACCEPT)).status).toBe(202);
    expect((await call.result()).result.structuredContent).toMatchObject({ status: 'done' });
  });

  it('refuses a protocol version the server does not speak as the transport does (400)', async () => {
    const s = await serve();
    const call = await asked(s);
    const refused = await call.answer(ACCEPT, { 'mcp-protocol-version': '1999-01-01' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: .*2025-11-25/,
    );
    expect((await call.answer(ACCEPT)).status).toBe(202);
    expect((await call.result()).result.structuredContent).toMatchObject({ status: 'done' });
  });

  it("refuses a version its session's server was not given, though the SDK knows it (400)", async () => {
    // A server of its own that speaks only 2025-11-25: the transport learns that on connect.
    const kit = createElicitkit();
    const tools = fixtureTools(createStore());
    const handler = createHttpHandler(() => {
      const server = new McpServer(
        { name: 'narrow', version: '1' },
        { capabilities: { tools: {} }, supportedProtocolVersions: ['2025-11-25'], ...kit.serverOptions() },
      );
      for (const tool of tools) kit.register(server, tool);
      return server;
    });
    const node = listenerOf(handler, adapter);
    const http = createServer((req, res) => void node(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanup.push(async () => {
      await handler.close();
      http.closeAllConnections();
      http.close();
    });
    const call = await asked({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` });
    const refused = await call.answer(ACCEPT, { 'mcp-protocol-version': '2025-06-18' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'Bad Request: Unsupported protocol version: 2025-06-18 (supported versions: 2025-11-25)',
    );
    expect((await call.answer(ACCEPT)).status).toBe(202);
    expect((await call.result()).result.structuredContent).toMatchObject({ status: 'done' });
  });

  it('answers 404 for a session deleted meanwhile, as the transport does', async () => {
    const s = await serve();
    const call = await asked(s);
    expect((await call.delete()).status).toBe(200);
    const refused = await call.answer(ACCEPT);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: { code: -32001, message: 'Session not found' } });
  });
});
