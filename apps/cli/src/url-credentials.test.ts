/**
 * A target URL with a user name and password in it (`http://admin:pw@host/mcp`) is sent as HTTP
 * Basic authentication (as curl sends it), and the password is never printed: not on stderr when
 * the server cannot be reached, not in `doctor`'s report, not in a usage error. Was: fetch refuses
 * a URL holding credentials, so such a target never connected, and every command printed the
 * password twice on stderr (`could not connect to http://admin:pw@…: … includes credentials:
 * http://admin:pw@…`); doctor's report carried it as its `target`. A real SDK server over HTTP on
 * loopback that answers only the right Basic credentials; the CLI's `main`, as the shell runs it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpHandler } from '@elicitkit/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { runCli } from '../test/run-cli.js';

const PASSWORD = 'pa:ss w0rd/é';
const BASIC = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
/** The password as it stands in a URL, and as fetch or a message could spell it. */
const SPELLINGS = [PASSWORD, encodeURIComponent(PASSWORD), 'w0rd', BASIC.slice('Basic '.length)];

function pingServer(): McpServer {
  const server = new McpServer({ name: 'guarded', version: '1.0.0' });
  server.registerTool(
    'ping',
    { description: 'Answers pong.', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
    async () => ({ content: [{ type: 'text', text: 'pong' }] }),
  );
  return server;
}

let port = 0;
let stop: () => Promise<void> = async () => {};
beforeAll(async () => {
  const handler = createHttpHandler(() => pingServer());
  const node = toNodeHandler(handler);
  const http = createServer((req, res) => {
    if (req.headers.authorization !== BASIC) {
      res.writeHead(401, { 'www-authenticate': 'Basic' }).end();
      return;
    }
    void node(req as never, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  port = (http.address() as AddressInfo).port;
  stop = async () => {
    await handler.close();
    http.closeAllConnections();
    http.close();
  };
});
afterAll(() => stop());

const withCredentials = (p: number) => `http://admin:${encodeURIComponent(PASSWORD)}@127.0.0.1:${p}/mcp`;

function expectNoPassword(text: string): void {
  for (const spelling of SPELLINGS) expect(text, 'the password is printed').not.toContain(spelling);
}

describe('a target URL holding credentials', () => {
  it('tools: the credentials are sent as Basic authentication, and printed nowhere', async () => {
    const r = await runCli(['tools', withCredentials(port), '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).tools.map((t: { name: string }) => t.name)).toEqual(['ping']);
  }, 30_000);

  it('call: the call is made, and the result printed without the password', async () => {
    const r = await runCli(['call', withCredentials(port), 'ping']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('pong');
    expectNoPassword(r.out + r.err);
  }, 30_000);

  it('a server that cannot be reached: the failure names the URL without the password', async () => {
    // A port that was free a moment ago: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const free = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    for (const args of [
      ['tools', withCredentials(free)],
      ['call', withCredentials(free), 'ping', '--json'],
    ]) {
      const r = await runCli(args);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`could not connect to http://127.0.0.1:${free}/mcp`);
      expectNoPassword(r.out + r.err);
    }
  }, 30_000);

  it('doctor: neither its warning nor its report carries the password', async () => {
    const r = await runCli(['doctor', withCredentials(port), '--yes', '--json', '--revision', '2026-07-28']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.target).toBe(`http://127.0.0.1:${port}/mcp`);
    expect(report.tools.map((t: { name: string }) => t.name)).toEqual(['ping']);
    expectNoPassword(r.out + r.err);
  }, 60_000);

  it('a target that is not an MCP URL is refused without echoing its password', async () => {
    for (const word of [
      `ftp://admin:${encodeURIComponent(PASSWORD)}@example.com/mcp`,
      `http://admin:w0rd@exa mple.com/`,
    ]) {
      const r = await runCli(['tools', word]);
      expect(r.code).toBe(2);
      expectNoPassword(r.out + r.err);
    }
  });

  it('a password that is no percent-encoded text: a usage error that does not echo it', async () => {
    const r = await runCli(['tools', `http://admin:w0rd%zz@127.0.0.1:${port}/mcp`]);
    expect(r.code).toBe(2);
    expectNoPassword(r.out + r.err);
  });

  it('credentials in the URL and an Authorization header: a usage error, nothing sent', async () => {
    const r = await runCli(['tools', withCredentials(port), '--header', 'Authorization: Bearer x']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('Authorization');
    expectNoPassword(r.out + r.err);
  });
});
