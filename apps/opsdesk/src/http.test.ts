import { request } from 'node:http';
import type { Revision } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { callTool, deferred } from '../../../test/support/mcp.js';
import {
  count,
  httpClient,
  httpMatrixSetup,
  httpOpsdeskForSuite,
  peek,
  tempDataDir,
  tokenOf,
} from '../test/harness.js';
import { outcomeMatrix } from '../test/matrix.js';
import { serveHttp } from './serve-http.js';

/** A request with headers fetch will not let a test set (Host). */
function rawPost(url: string, headers: Record<string, string>, method = 'POST'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

outcomeMatrix('HTTP', '2025-11-25', httpMatrixSetup('socket'));
outcomeMatrix('HTTP', '2026-07-28', httpMatrixSetup('socket'));

describe('opsdesk HTTP endpoint', () => {
  const served = httpOpsdeskForSuite();

  it('creates one token per user on first start only, and stores only hashes', async () => {
    expect(served.server.newTokens.map((t) => t.username)).toEqual(['alice', 'bob']);
    const stored = peek<{ token_hash: string }>(served.dataDir, 'SELECT token_hash FROM api_tokens');
    expect(stored).toHaveLength(2);
    for (const { token } of served.server.newTokens) expect(stored.map((s) => s.token_hash)).not.toContain(token);
  });

  it('routes the MCP endpoint however its path is spelled, and nothing else', async () => {
    const { port } = served.server;
    /** The status for `path` sent as it is (fetch would normalise it). */
    const statusOf = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, method: 'POST' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end('{}');
      });
    // No token: the MCP endpoint answers 401, anything else 404.
    for (const path of ['/mcp', '/mcp?x=1', '/./mcp', '/x/../mcp']) expect(await statusOf(path)).toBe(401);
    for (const path of ['/mcp/', '/mcpx', '/']) expect(await statusOf(path)).toBe(404);
  });

  it('refuses requests without a valid bearer token', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(served.server.url, { method: 'POST', headers, body });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    const wrong = await fetch(served.server.url, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer ek_nope' },
      body,
    });
    expect(wrong.status).toBe(401);
  });

  it('refuses a foreign Host or Origin (DNS rebinding)', async () => {
    const auth = { authorization: `Bearer ${tokenOf(served.server, 'alice')}`, 'content-type': 'application/json' };
    expect(await rawPost(served.server.url, { ...auth, host: 'evil.example' })).toBe(403);
    expect(await rawPost(served.server.url, { ...auth, origin: 'https://evil.example' })).toBe(403);
    expect(
      await rawPost(
        served.server.url.replace('/mcp', '/register/aaaaaaaaaaaaaaaaaaaa'),
        { host: 'evil.example' },
        'GET',
      ),
    ).toBe(403);
  });

  it.each(['2025-11-25', '2026-07-28'] as Revision[])(
    'keeps two concurrent sessions apart: each answer reaches its own call (%s)',
    async (revision) => {
      const alice = await httpClient(served.server.url, tokenOf(served.server, 'alice'), { revision });
      const bob = await httpClient(served.server.url, tokenOf(served.server, 'bob'), { revision });
      // Neither answers before both have been asked, so both calls are open at once; bob answers first.
      const aliceAsked = deferred();
      const bobAsked = deferred();
      const bobAnswered = deferred();
      alice.script.push(async () => {
        aliceAsked.resolve();
        await Promise.all([bobAsked.promise, bobAnswered.promise]);
        return { action: 'accept', content: { env: 'staging' } };
      });
      bob.script.push(async () => {
        bobAsked.resolve();
        await aliceAsked.promise;
        queueMicrotask(() => bobAnswered.resolve());
        return { action: 'accept', content: { env: 'dev' } };
      });
      const [a, b] = await Promise.all([
        callTool(alice.client, 'deploy_service', { service: 'search-service' }),
        callTool(bob.client, 'deploy_service', { service: 'search-service' }),
      ]);
      expect(a.structured?.deployment).toMatchObject({ env: 'staging' });
      expect(b.structured?.deployment).toMatchObject({ env: 'dev' });
      const rows = peek<{ env: string; deployed_by: string }>(
        served.dataDir,
        'SELECT env, deployed_by FROM deployments WHERE id IN (?, ?) ORDER BY id',
        ...[a, b].map((r) => (r.structured?.deployment as { id?: number } | undefined)?.id),
      );
      expect(new Map(rows.map((r) => [r.deployed_by, r.env]))).toEqual(
        new Map([
          ['alice', 'staging'],
          ['bob', 'dev'],
        ]),
      );
      await alice.close();
      await bob.close();
    },
  );

  it('survives a client that disconnects mid-question: no side effect, still healthy', async () => {
    const quitter = await httpClient(served.server.url, tokenOf(served.server, 'alice'), { revision: '2025-11-25' });
    const before = count(served.dataDir, 'deployments');
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    quitter.script.push(() => {
      asked();
      return 'hang';
    });
    const pending = callTool(quitter.client, 'deploy_service', { service: 'order-service' }).catch((e: unknown) => e);
    await wasAsked;
    const sessions = served.server.sessions();
    await quitter.close();
    expect(await pending).toBeInstanceOf(Error);
    // The question ended at once as a cancel, and the trail says the client went away (not "timeout").
    const ended = () =>
      peek<{ action: string; detail: string | null }>(
        served.dataDir,
        "SELECT action, detail FROM audit_responses WHERE tool = 'deploy_service' AND detail LIKE 'disconnected%'",
      );
    await expect.poll(ended).toHaveLength(1);
    expect(ended()[0]).toMatchObject({ action: 'cancel' });
    // Its session is released too.
    await expect.poll(() => served.server.sessions(), { timeout: 10_000 }).toBe(sessions - 1);
    const fresh = await httpClient(served.server.url, tokenOf(served.server, 'bob'), { revision: '2025-11-25' });
    const r = await callTool(fresh.client, 'list_deployments', { service: 'search-service' });
    expect(r.status).toBe('done');
    expect(count(served.dataDir, 'deployments')).toBe(before);
    await fresh.close();
  });

  it('binds a 2025 session to the token that opened it', async () => {
    const alice = await httpClient(served.server.url, tokenOf(served.server, 'alice'), { revision: '2025-11-25' });
    const sessionId = (alice.client as unknown as { transport?: { sessionId?: string } }).transport?.sessionId;
    expect(sessionId).toBeTruthy();
    const hijack = await fetch(served.server.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokenOf(served.server, 'bob')}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': String(sessionId),
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
    await alice.close();
  });
});

describe('graceful shutdown', () => {
  it('finishes a call in flight before closing the database, refusing new work meanwhile', async () => {
    const data = tempDataDir();
    const server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    const client = await httpClient(server.url, tokenOf(server, 'alice'), { revision: '2025-11-25' });
    const asked = deferred();
    const closeStarted = deferred();
    // The answer is sent only once the server has begun closing: the call is in flight across it.
    client.script.push(async () => {
      asked.resolve();
      await closeStarted.promise;
      return { action: 'accept', content: { env: 'dev' } };
    });
    const before = count(data.dir, 'deployments');
    const call = callTool(client.client, 'deploy_service', { service: 'user-service' });
    await asked.promise;
    const closing = server.close();
    // New work is refused while it drains (503, retry later); the answer below still gets through.
    const refused = await fetch(server.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokenOf(server, 'bob')}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } },
      }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await refused.json()).error.message).toBe('opsdesk is shutting down');
    closeStarted.resolve();
    const r = await call;
    await closing;
    expect(r.status).toBe('done');
    expect(count(data.dir, 'deployments')).toBe(before + 1);
    await client.close().catch(() => {});
    data.remove();
  });
});
