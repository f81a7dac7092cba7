/**
 * A target URL carrying a token in its query (`http://host/mcp?token=…`) is used as given and
 * printed with every query value as `…` (and without its `#fragment`): in `tools`, `call` and
 * `doctor`, in their errors, the connect's waiting note, doctor's report and an SDK message that
 * quotes a URL (a redirect). Was: the token printed as typed everywhere the target is named. A
 * real SDK server over HTTP on loopback that answers only the right token; the CLI's `main`, as
 * the shell runs it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { createHttpHandler } from '@elicitkit/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { runCli } from '../test/run-cli.js';
import { credentialUrlsShown, shownUrl, urlsShown } from './shown-url.js';

const TOKEN = 'tok-9f3e1c77a0b2';
const FRAGMENT = 'frag-5d0c33e1';

function pingServer(): McpServer {
  const server = new McpServer({ name: 'guarded', version: '1.0.0' });
  server.registerTool(
    'ping',
    { description: 'Answers pong.', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
    async () => ({ content: [{ type: 'text', text: 'pong' }] }),
  );
  return server;
}

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

let port = 0;
let stop: () => Promise<void> = async () => {};
beforeAll(async () => {
  const handler = createHttpHandler(() => pingServer());
  const node = toNodeHandler(handler);
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/moved') {
      // Sends the client on to another origin, the token with it: the SDK does not follow, and says where.
      res.writeHead(307, { location: `http://localhost:${port}/elsewhere/mcp?token=${TOKEN}` }).end();
      return;
    }
    if (url.searchParams.get('token') !== TOKEN) {
      res.writeHead(401).end();
      return;
    }
    void node(req as never, res);
  });
  port = await listen(http);
  stop = async () => {
    await handler.close();
    http.closeAllConnections();
    http.close();
  };
});
afterAll(() => stop());

const withToken = (p: number, path = '/mcp') => `http://127.0.0.1:${p}${path}?token=${TOKEN}&v=2#${FRAGMENT}`;

function expectNoToken(text: string): void {
  expect(text, 'the token is printed').not.toContain(TOKEN);
  expect(text, 'the fragment is printed').not.toContain(FRAGMENT);
}

describe('a target URL with a token in its query', () => {
  it('tools and call: the token is sent, and printed nowhere', async () => {
    const listed = await runCli(['tools', withToken(port), '--json']);
    expect(listed.err).toBe('');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out).tools.map((t: { name: string }) => t.name)).toEqual(['ping']);
    const called = await runCli(['call', withToken(port), 'ping']);
    expect(called.code).toBe(0);
    expect(called.out).toBe('pong');
    expectNoToken(called.out + called.err);
    const missing = await runCli(['call', withToken(port), 'pong', '--json']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`http://127.0.0.1:${port}/mcp?token=…&v=… has no tool "pong"`);
    expectNoToken(missing.out + missing.err);
  }, 30_000);

  it('a server that cannot be reached: the failure names the URL with its query values masked', async () => {
    const closed = createServer();
    const free = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    for (const args of [
      ['tools', withToken(free)],
      ['call', withToken(free), 'ping', '--json'],
    ]) {
      const r = await runCli(args);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`could not connect to http://127.0.0.1:${free}/mcp?token=…&v=…`);
      expectNoToken(r.out + r.err);
    }
  }, 30_000);

  it('a server that never answers: the waiting note and the timeout mask it too', async () => {
    const sockets = new Set<Socket>();
    const deaf = createTcpServer((socket) => {
      sockets.add(socket);
    });
    const deafPort = await listen(deaf);
    const before = process.env.ELICITKIT_CONNECT_TIMEOUT_MS;
    process.env.ELICITKIT_CONNECT_TIMEOUT_MS = '1000';
    try {
      const r = await runCli(['tools', withToken(deafPort)]);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`waiting for http://127.0.0.1:${deafPort}/mcp?token=…&v=… to answer`);
      expect(r.err).toContain('no answer within 1 s');
      expectNoToken(r.out + r.err);
    } finally {
      if (before === undefined) delete process.env.ELICITKIT_CONNECT_TIMEOUT_MS;
      else process.env.ELICITKIT_CONNECT_TIMEOUT_MS = before;
      for (const socket of sockets) socket.destroy();
      deaf.close();
    }
  }, 30_000);

  it('a redirect not followed: the failure names both URLs without the token', async () => {
    for (const args of [
      ['tools', withToken(port, '/moved')],
      ['call', withToken(port, '/moved'), 'ping'],
    ]) {
      const r = await runCli(args);
      expect(r.code).toBe(1);
      expect(r.out + r.err).toContain(`127.0.0.1:${port}/moved?token=…&v=…`);
      expect(r.out + r.err).toContain(`localhost:${port}/elsewhere/mcp`);
      expectNoToken(r.out + r.err);
    }
  }, 60_000);

  it('doctor: neither its warning nor its report carries the token', async () => {
    const r = await runCli(['doctor', withToken(port), '--yes', '--json', '--revision', '2026-07-28']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.target).toBe(`http://127.0.0.1:${port}/mcp?token=…&v=…`);
    expect(report.tools.map((t: { name: string }) => t.name)).toEqual(['ping']);
    expectNoToken(r.out + r.err);
  }, 60_000);

  it('a target refused as no MCP URL does not echo its query', async () => {
    for (const word of [`ftp://127.0.0.1/mcp?token=${TOKEN}`, `http://exa mple.com/mcp?token=${TOKEN}#${FRAGMENT}`]) {
      const r = await runCli(['tools', word]);
      expect(r.code).toBe(2);
      expectNoToken(r.out + r.err);
    }
  });

  it('the rule: names kept, values and fragments never', () => {
    expect(shownUrl(new URL('https://u:p@h.example/mcp?token=s&flag&=x#f'))).toBe('https://h.example/mcp?token=…&…&=…');
    expect(shownUrl(new URL('https://h.example/mcp'))).toBe('https://h.example/mcp');
    expect(urlsShown('Redirect to https://h.example/a?k=s3cret. Then (http://a:b@h/x?y=z).')).toBe(
      'Redirect to https://h.example/a?k=…. Then (http://h/x?y=…).',
    );
    // A config's value: any scheme with a password, a query or a fragment; one with none of them as written.
    expect(credentialUrlsShown('dsn postgresql://admin:s3cret@db.internal:5432/prod, redis://:pw@r/0')).toBe(
      'dsn postgresql://db.internal:5432/prod, redis://r/0',
    );
    expect(credentialUrlsShown('mongodb+srv://cluster.example/db?authSource=admin&password=s3cret')).toBe(
      'mongodb+srv://cluster.example/db?authSource=…&password=…',
    );
    expect(credentialUrlsShown('ws://h:8080/feed and C://Users/me')).toBe('ws://h:8080/feed and C://Users/me');
  });
});
