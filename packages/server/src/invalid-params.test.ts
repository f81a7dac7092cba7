/**
 * A request whose params fail the schema of a spec method the SDK dispatches itself is answered
 * -32602, naming the fields — on every transport a kit server is connected to — where the SDK
 * alone answers -32603 (its gap, pinned in `http/hostile-wire.property.test.ts`). Any other
 * error is sent as it was.
 */
import { InMemoryTransport, type JSONRPCMessage, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { createHttpHandler } from './http/handler.js';
import { invalidParamsNamed } from './invalid-params.js';
import { createElicitkit } from './kit.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

const CURSOR = 'Invalid params: params.cursor: Invalid input: expected string, received number';

/**
 * Over `clientSide`: a 2025-11-25 handshake, then tools/list with a numeric cursor (id 2) and with
 * none (id 3); returns the answers by id once all three requests are answered.
 */
async function listWithCursors(clientSide: InMemoryTransport): Promise<(id: number) => JSONRPCMessage | undefined> {
  const answers: JSONRPCMessage[] = [];
  clientSide.onmessage = (m) => answers.push(m);
  await clientSide.start();
  await clientSide.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'p', version: '1' } },
  });
  await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await clientSide.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 5 } });
  await clientSide.send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} });
  await expect.poll(() => answers.filter((m) => 'id' in m).length).toBe(3);
  return (id) => answers.find((m) => 'id' in m && m.id === id);
}

describe('params a spec method refuses', () => {
  it('in memory (any transport a kit server is connected to): tools/list with a numeric cursor is -32602', async () => {
    const server = createElicitkit().createServer({ name: 'p', version: '1' }, fixtureTools(createStore()));
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    cleanup.push(() => server.close());
    const byId = await listWithCursors(clientSide);
    expect(byId(2)).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: CURSOR } });
    // The server goes on: the same request with good params is answered.
    expect((byId(3) as { result?: { tools?: unknown[] } }).result?.tools?.length).toBeGreaterThan(0);
  });

  it('on a server built by hand whose kit tools are registered after it connected', async () => {
    const kit = createElicitkit();
    const server = new McpServer({ name: 'late', version: '1' }, kit.serverOptions());
    // A hand-written tool first: the SDK takes tools registered after connecting only once it has one.
    server.registerTool('ping', { description: 'Answers pong.' }, () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    cleanup.push(() => server.close());
    // Registered once connected (tools that come and go): the connection already made gets the seam too.
    for (const tool of fixtureTools(createStore())) kit.register(server, tool);
    const byId = await listWithCursors(clientSide);
    expect(byId(2)).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: CURSOR } });
    // The server goes on: the same request with good params is answered.
    expect((byId(3) as { result?: { tools?: unknown[] } }).result?.tools?.length).toBeGreaterThan(0);
  });

  it('behind createHttpHandler: initialize again on a session, and tools/list on 2026-07-28', async () => {
    const kit = createElicitkit();
    const handler = createHttpHandler(() => kit.createServer({ name: 'p', version: '1' }, fixtureTools(createStore())));
    cleanup.push(() => handler.close());
    const headers = {
      host: '127.0.0.1',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const post = async (body: unknown, extra: Record<string, string> = {}) => {
      const response = await handler.fetch(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: { ...headers, ...extra },
          body: JSON.stringify(body),
        }),
      );
      const text = await response.text();
      const data = text.split('\n').find((line) => line.startsWith('data: '));
      return {
        response,
        message: (text.length === 0 ? undefined : JSON.parse(data ? data.slice(6) : text)) as
          | { error?: { code: number; message: string } }
          | undefined,
      };
    };
    const opened = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'p', version: '1' } },
    });
    const session = {
      'mcp-session-id': opened.response.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': '2025-11-25',
    };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    const again = await post({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { capabilities: {} } }, session);
    expect(again.message?.error?.code).toBe(-32602);
    expect(again.message?.error?.message).toMatch(/^Invalid params: params\.protocolVersion: .*; params\.clientInfo: /);

    const modern = await post(
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/list',
        params: {
          cursor: 5,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'p', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    );
    expect(modern.message?.error).toEqual({ code: -32602, message: CURSOR });
  });

  it('leaves every other error as it was', () => {
    const error = (message: string, code = -32603): JSONRPCMessage => ({
      jsonrpc: '2.0',
      id: 1,
      error: { code, message },
    });
    for (const kept of [
      error('Internal error'),
      error('[1,2]'),
      error('[]'),
      error('[not json'),
      error('[{"path":["arguments","x"],"message":"bad"}]'),
      error('[{"path":["params","x"]}]'),
      error('[{"path":["params","x"],"message":"bad"}]', -32000),
    ])
      expect(invalidParamsNamed(kept)).toBe(kept);
    expect(invalidParamsNamed(error('[{"path":["params","x",0],"message":"bad"}]'))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'Invalid params: params.x.0: bad' },
    });
    const result: JSONRPCMessage = { jsonrpc: '2.0', id: 1, result: {} };
    expect(invalidParamsNamed(result)).toBe(result);
  });
});
