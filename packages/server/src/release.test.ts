/**
 * Prompt release on 2025 revisions: a question left open by a client that goes away, deletes its
 * session or cancels the call ends at once as `cancel`, the audit says how, and nothing is kept.
 * Every path is a real transport — HTTP on loopback through either Node adapter (ours, the SDK's), a stdio child process,
 * a linked in-memory pair — with the real SDK client. The question's timeout is 30 s; the audit's
 * `reason` says it ended for the client's doing, not by that timeout (no wall-clock assertion).
 */
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { auditLog } from '../test/audit-log.js';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import {
  ADAPTERS,
  type Adapter,
  httpTransport,
  patientClient,
  loopback as serve,
  startDeploy,
} from '../test/loopback.js';
import type { AuditEvent, AuditResponse } from './audit.js';
import { createElicitkit } from './kit.js';

const QUESTION_TIMEOUT_MS = 30_000;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

async function loopback(adapter: Adapter) {
  const s = await serve({ abandonedSessionMs: 50, kit: { timeoutMs: QUESTION_TIMEOUT_MS }, adapter });
  cleanup.push(() => s.close());
  return s;
}

function expectCancelled(ended: AuditResponse, reason: AuditResponse['reason']) {
  expect(ended).toMatchObject({ type: 'response', key: 'env', action: 'cancel', reason });
}

describe.each(ADAPTERS)('2025-11-25 over HTTP on loopback (%s adapter): an open question is released', (adapter) => {
  it('when the client drops its stream without a word: cancel (disconnected), and its session goes', async () => {
    const s = await loopback(adapter);
    const c = patientClient();
    await c.client.connect(httpTransport(s.url));
    void startDeploy(c.client);
    await c.asked;
    expect(s.handler.sessionCount()).toBe(1);
    await c.client.close(); // aborts every fetch: no DELETE, no cancel
    expectCancelled(await s.log.response('env'), 'disconnected');
    await expect.poll(() => s.handler.sessionCount()).toBe(0);
    expect(s.store.deployments).toEqual([]);
  });

  it('when the client deletes its session: cancel (session-closed)', async () => {
    const s = await loopback(adapter);
    const c = patientClient();
    const transport = httpTransport(s.url);
    await c.client.connect(transport);
    void startDeploy(c.client);
    await c.asked;
    await transport.terminateSession();
    expectCancelled(await s.log.response('env'), 'session-closed');
    expect(s.handler.sessionCount()).toBe(0);
    await c.client.close();
  });

  it('when the client cancels the call (notifications/cancelled): cancel (client-cancelled), not timeout', async () => {
    const s = await loopback(adapter);
    const c = patientClient();
    await c.client.connect(httpTransport(s.url));
    const abort = new AbortController();
    const call = startDeploy(c.client, abort.signal);
    await c.asked;
    abort.abort('changed my mind');
    expect(await call).toBeInstanceOf(Error);
    expectCancelled(await s.log.response('env'), 'client-cancelled');
    // The session itself stays: the client is still here.
    expect(s.handler.sessionCount()).toBe(1);
    await c.client.close();
  });

  it('50 abandoned calls: every question cancelled, no session and no open question left', async () => {
    const s = await loopback(adapter);
    const clients = Array.from({ length: 50 }, (_, i) => patientClient(`abandoner-${i}`));
    await Promise.all(clients.map((c) => c.client.connect(httpTransport(s.url))));
    for (const c of clients) void startDeploy(c.client);
    await Promise.all(clients.map((c) => c.asked));
    expect(s.handler.sessionCount()).toBe(50);
    await Promise.all(clients.map((c) => c.client.close()));
    await expect.poll(() => s.log.events.filter((e) => e.type === 'response').length).toBe(50);
    const ended = s.log.events.filter((e): e is AuditResponse => e.type === 'response');
    expect(new Set(ended.map((e) => `${e.action}:${e.reason}`))).toEqual(new Set(['cancel:disconnected']));
    await expect.poll(() => s.handler.sessionCount()).toBe(0);
    expect(s.store.deployments).toEqual([]);
  });
});

describe('2025-11-25 over stdio: an open question is released', () => {
  /** The fixture server as a child process, its audit events read from its stderr. */
  async function child() {
    const c = patientClient();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        '--conditions=@elicitkit/source',
        fileURLToPath(new URL('../test/stdio-server.ts', import.meta.url)),
      ],
      env: {
        ...(process.env as Record<string, string>),
        ELICITKIT_AUDIT_STDERR: '1',
        ELICITKIT_TIMEOUT_MS: String(QUESTION_TIMEOUT_MS),
      },
      stderr: 'pipe',
    });
    const log = auditLog();
    let buffer = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith('{')) log.sink(JSON.parse(line) as AuditEvent);
      }
    });
    await c.client.connect(transport, { timeout: 60_000 });
    cleanup.push(() => c.client.close());
    return { ...c, log };
  }

  it('when the client goes away (the pipe closes): cancel (disconnected)', async () => {
    const c = await child();
    void startDeploy(c.client);
    await c.asked;
    await c.client.close();
    expectCancelled(await c.log.response('env'), 'disconnected');
  });

  it('when the client cancels the call: cancel (client-cancelled)', async () => {
    const c = await child();
    const abort = new AbortController();
    const call = startDeploy(c.client, abort.signal);
    await c.asked;
    abort.abort('changed my mind');
    expect(await call).toBeInstanceOf(Error);
    expectCancelled(await c.log.response('env'), 'client-cancelled');
  });
});

describe('2025-11-25 over a linked in-memory pair', () => {
  const kits: ReturnType<typeof createElicitkit>[] = [];
  async function pair() {
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink, timeoutMs: QUESTION_TIMEOUT_MS });
    kits.push(kit);
    const server = kit.createServer({ name: 'fixture', version: '1' }, fixtureTools(createStore()));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const c = patientClient();
    await c.client.connect(b);
    cleanup.push(() => server.close());
    return { ...c, log };
  }

  it('when the connection closes: cancel (disconnected)', async () => {
    const c = await pair();
    void startDeploy(c.client);
    await c.asked;
    await c.client.close();
    expectCancelled(await c.log.response('env'), 'disconnected');
  });

  it('settled() waits for the call still running, and resolves once its question is released', async () => {
    const c = await pair();
    const kit = kits.at(-1);
    void startDeploy(c.client);
    await c.asked;
    let settled = false;
    const waiting = kit?.settled().then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    await c.client.close();
    await waiting;
    expect(settled).toBe(true);
    expect(c.log.events.some((e) => e.type === 'response')).toBe(true);
  });

  it('when the client cancels the call: cancel (client-cancelled)', async () => {
    const c = await pair();
    const abort = new AbortController();
    const call = startDeploy(c.client, abort.signal);
    await c.asked;
    abort.abort();
    expect(await call).toBeInstanceOf(Error);
    expectCancelled(await c.log.response('env'), 'client-cancelled');
    await c.client.close();
  });
});
