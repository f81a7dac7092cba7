/**
 * `serving.fetch`: opsdesk's MCP endpoint reached in process (the web app's chats), the same
 * handler as the port. The outcome matrix runs through it on both revisions; then what must hold
 * as over the network (tokens, Host check, sessions bound to their user, shutdown) and the
 * in-process parts alone (what a shutdown waits for, the last resort).
 */
import { describe, expect, it } from 'vitest';
import { callTool, deferred } from '../../../../test/support/mcp.js';
import { count, httpClient, httpMatrixSetup, tempDataDir, tokenOf } from '../../test/harness.js';
import { outcomeMatrix } from '../../test/matrix.js';
import { serveHttp } from '../serve-http.js';
import { createInFlight, inProcessFetch } from './in-process.js';
import { INTERNAL_ERROR_BODY } from './last-resort.js';

outcomeMatrix('its HTTP handler in process', '2025-11-25', httpMatrixSetup('in-process'));
outcomeMatrix('its HTTP handler in process', '2026-07-28', httpMatrixSetup('in-process'));

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = (name: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1' } },
  });

describe('serving.fetch refuses what the port refuses', () => {
  it('no token or an unknown one: 401; another path or port: 404; a foreign Host: 403', async () => {
    const data = tempDataDir();
    const server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    try {
      const post = (url: string, headers: Record<string, string>) =>
        server.fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: initialize('t') });
      const none = await post(server.url, {});
      expect(none.status).toBe(401);
      expect((await none.json()).error_description).toBe('A bearer token is required.');
      const unknown = await post(server.url, { authorization: 'Bearer not-a-token' });
      expect(unknown.status).toBe(401);
      expect((await unknown.json()).error_description).toBe('Unknown bearer token.');
      const alice = { authorization: `Bearer ${tokenOf(server, 'alice')}` };
      expect((await post(server.url.replace(/\/mcp$/, '/register/x'), alice)).status).toBe(404);
      expect((await post(server.url.replace(`:${server.port}/`, `:${server.port + 1}/`), alice)).status).toBe(404);
      const foreign = await post(server.url, { ...alice, host: 'evil.example' });
      expect(foreign.status).toBe(403);
      expect((await foreign.json()).error.message).toContain('Invalid Host');
      expect((await post(server.url, alice)).status).toBe(200);
    } finally {
      await server.close();
      data.remove();
    }
  });

  it('a 2025 session answers only the user who opened it', async () => {
    const data = tempDataDir();
    const server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    const alice = await httpClient(server.url, tokenOf(server, 'alice'), {
      revision: '2025-11-25',
      fetch: server.fetch,
    });
    try {
      const sessionId = (alice.client as unknown as { transport?: { sessionId?: string } }).transport?.sessionId;
      expect(sessionId).toBeTruthy();
      const hijack = await server.fetch(server.url, {
        method: 'POST',
        headers: {
          ...MCP_HEADERS,
          authorization: `Bearer ${tokenOf(server, 'bob')}`,
          'mcp-session-id': String(sessionId),
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(hijack.status).toBe(404);
    } finally {
      await alice.close();
      await server.close();
      data.remove();
    }
  });
});

describe('serving.fetch and shutdown', () => {
  it('finishes a call in flight, refuses new work meanwhile, then fails as a closed port', async () => {
    const data = tempDataDir();
    const server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    const client = await httpClient(server.url, tokenOf(server, 'alice'), {
      revision: '2025-11-25',
      fetch: server.fetch,
    });
    const asked = deferred();
    const closeStarted = deferred();
    client.script.push(async () => {
      asked.resolve();
      await closeStarted.promise;
      return { action: 'accept', content: { env: 'dev' } };
    });
    const before = count(data.dir, 'deployments');
    const call = callTool(client.client, 'deploy_service', { service: 'user-service' });
    await asked.promise;
    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    const refused = await server.fetch(server.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${tokenOf(server, 'bob')}` },
      body: initialize('late'),
    });
    expect(refused.status).toBe(503);
    expect((await refused.json()).error.message).toBe('opsdesk is shutting down');
    // The call's stream is in flight: the shutdown waits for it.
    expect(closed).toBe(false);
    closeStarted.resolve();
    const r = await call;
    await closing;
    expect(r.status).toBe('done');
    expect(count(data.dir, 'deployments')).toBe(before + 1);
    const after = server.fetch(server.url, { method: 'POST', headers: MCP_HEADERS, body: initialize('after') });
    await expect(after).rejects.toThrow(TypeError);
    await expect(after).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    await client.close().catch(() => {});
    data.remove();
  });
});

describe('inProcessFetch alone', () => {
  const url = 'http://127.0.0.1:1/mcp';
  const settled = async (p: Promise<void>) => {
    let done = false;
    void p.then(() => {
      done = true;
    });
    // Streams settle in promise jobs only: once the loop turns, every one has run.
    await new Promise((resolve) => setImmediate(resolve));
    return done;
  };

  it('a JSON answer ends its work when it is returned, a stream once written, read or not', async () => {
    const inFlight = createInFlight(60_000);
    let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
    const fetch = inProcessFetch({
      url,
      serve: async (request) =>
        request.headers.get('x-kind') === 'json'
          ? Response.json({ ok: true })
          : new Response(
              new ReadableStream<Uint8Array>({
                start(c) {
                  stream = c;
                },
              }),
              { headers: { 'content-type': 'text/event-stream' } },
            ),
      closed: () => false,
      inFlight,
      onError: () => {},
    });
    await fetch(url, { method: 'POST', headers: { 'x-kind': 'json' }, body: '{}' }); // body never read
    expect(await settled(inFlight.drained())).toBe(true);
    const sse = await fetch(url, { method: 'POST', headers: { 'x-kind': 'sse' }, body: '{}' });
    const waiting = inFlight.drained();
    expect(await settled(waiting)).toBe(false);
    stream?.enqueue(new TextEncoder().encode('data: {}\n\n'));
    stream?.close();
    expect(await settled(waiting)).toBe(true);
    // What the client had not read yet is all there.
    expect(await sse.text()).toBe('data: {}\n\n');
    // A stream the client cancels ends too; a GET stream is never waited for.
    const cancelled = await fetch(url, { method: 'POST', body: '{}' });
    expect(await settled(inFlight.drained())).toBe(false);
    await cancelled.body?.cancel();
    expect(await settled(inFlight.drained())).toBe(true);
    await fetch(url, { method: 'GET' });
    expect(await settled(inFlight.drained())).toBe(true);
  });

  it('an error nothing answered: a generic 500 for the client, the detail for the operator', async () => {
    const told: [unknown, string][] = [];
    const inFlight = createInFlight(60_000);
    const fetch = inProcessFetch({
      url,
      serve: async () => {
        throw new Error('SQLITE_CORRUPT: /secret/path/opsdesk.db');
      },
      closed: () => false,
      inFlight,
      onError: (error, where) => told.push([error, where]),
    });
    const response = await fetch(url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe(INTERNAL_ERROR_BODY);
    expect(told.map(([e, where]) => [String(e), where])).toEqual([
      ['Error: SQLITE_CORRUPT: /secret/path/opsdesk.db', 'POST /mcp (in process)'],
    ]);
    expect(await settled(inFlight.drained())).toBe(true);
  });

  it('an end called twice counts once', async () => {
    const inFlight = createInFlight(60_000);
    const a = inFlight.begin();
    const b = inFlight.begin();
    a();
    a();
    expect(await settled(inFlight.drained())).toBe(false);
    b();
    expect(await settled(inFlight.drained())).toBe(true);
  });
});
