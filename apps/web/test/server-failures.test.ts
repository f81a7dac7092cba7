/**
 * Errors name what failed: a configured MCP server that cannot be used is named in the tools
 * panel's listing and in the turn with where it is (its URL, or its command) and the cause in
 * plain words — refused, a port fetch will not use, host not found, the HTTP status it answered,
 * no answer in time, a command that could not be started or exited at once — never with a header
 * value, a URL's credentials or the body it answered. Real servers (loopback HTTP, real child
 * processes, the real SDK client) behind the route handlers.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRestartable } from '../../../test/support/restartable-mcp.js';
import { freePort } from '../../../test/support/service.js';

/** `/401`, `/403`, `/404` answer that status (with a body that must not be shown); `/silent` never answers. */
const statuses: Server = createServer((req, res) => {
  if (req.url === '/silent') return;
  res.writeHead(Number(req.url?.slice(1, 4)), { 'content-type': 'text/plain' });
  res.end('body-secret: do not show');
});
await new Promise<void>((resolve) => statuses.listen(0, '127.0.0.1', resolve));
const at = `http://127.0.0.1:${(statuses.address() as AddressInfo).port}`;

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-server-failures-'));
const pidFile = join(data, 'mute.pid');
const up = await startRestartable();
const refusedPort = await freePort();
const headers = { authorization: 'Bearer ek_secret_token', 'x-api-key': 'key-value-secret' };
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_CONNECT_TIMEOUT_MS = '4000';
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'up', url: up.url },
  { name: 'refused', url: `http://127.0.0.1:${refusedPort}/mcp` },
  // The example: fetch never connects to port 9 (a "bad port"), so it is not "refused".
  { name: 'ops', url: 'http://127.0.0.1:9/mcp' },
  { name: 'nohost', url: 'http://nosuch.invalid/mcp' },
  { name: 'creds', url: `http://127.0.0.1:${refusedPort}/mcp?token=hunter2`, headers },
  { name: 'locked', url: `${at}/401`, headers },
  { name: 'locked25', url: `${at}/401`, headers, revision: '2025-11-25' },
  { name: 'denied', url: `${at}/403`, headers },
  { name: 'wrongpath', url: `${at}/404` },
  { name: 'silent', url: `${at}/silent` },
  { name: 'missing', command: ['nosuch-elicitkit-command', '--token', 'sekrit', '--api-key=sekrit2'] },
  { name: 'crashes', command: [process.execPath, '-e', 'process.exit(3)'] },
  { name: 'crashes26', command: [process.execPath, '-e', 'process.exit(3)'], revision: '2026-07-28' },
  {
    name: 'mute',
    command: [
      process.execPath,
      '-e',
      'require("fs").writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000)',
      pidFile,
    ],
  },
]);

const { newBrowser, turn } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  await up.stop();
  statuses.closeAllConnections();
  await new Promise((resolve) => statuses.close(resolve));
  rmSync(data, { recursive: true, force: true });
});

interface Listing {
  tools?: { name: string; server: string }[];
  unavailable?: { server: string; message: string }[];
  error?: string;
}
type Chunk = Record<string, unknown> & { delta?: string };

const b = await newBrowser();
const response = await getTools(new Request('http://localhost/api/tools', { headers: { cookie: b.cookie } }));
const listing = (await response.json()) as Listing;
const said = (server: string) => listing.unavailable?.find((u) => u.server === server)?.message;
const notSent = 'The request was not sent.';

/** The last `mute` process started (it writes its pid) is stopped once connecting to it gave up. */
async function muteEnded(): Promise<void> {
  expect(existsSync(pidFile)).toBe(true);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  await expect.poll(alive, { timeout: 10_000 }).toBe(false);
}

describe('a configured server that cannot be used', () => {
  it('leaves the others listed, and names every one that failed', () => {
    expect(response.status).toBe(200);
    expect(new Set(listing.tools?.map((t) => t.server))).toEqual(new Set(['up']));
    expect(listing.unavailable?.map((u) => u.server)).toEqual([
      'refused',
      'ops',
      'nohost',
      'creds',
      'locked',
      'locked25',
      'denied',
      'wrongpath',
      'silent',
      'missing',
      'crashes',
      'crashes26',
      'mute',
    ]);
  });

  it.each([
    [
      'refused',
      `The MCP server "refused" (http://127.0.0.1:${refusedPort}/mcp) cannot be reached: connection refused (nothing listens there). ${notSent} Try again once it is running.`,
    ],
    [
      'ops',
      `The MCP server "ops" (http://127.0.0.1:9/mcp) cannot be reached: fetch does not connect to port 9 (it is reserved for another protocol). ${notSent} Serve it on another port.`,
    ],
    [
      'locked',
      `The MCP server "locked" (${at}/401) cannot be reached: it answered HTTP 401 Unauthorized: it wants credentials. ${notSent} Check the token in its "headers" in ELICITKIT_SERVERS.`,
    ],
    [
      'locked25',
      `The MCP server "locked25" (${at}/401) cannot be reached: it answered HTTP 401 Unauthorized: it wants credentials. ${notSent} Check the token in its "headers" in ELICITKIT_SERVERS.`,
    ],
    [
      'denied',
      `The MCP server "denied" (${at}/403) cannot be reached: it answered HTTP 403 Forbidden: its credentials are not allowed there. ${notSent} Check the token in its "headers" in ELICITKIT_SERVERS.`,
    ],
    [
      'wrongpath',
      `The MCP server "wrongpath" (${at}/404) cannot be reached: it answered HTTP 404 Not Found: nothing is served at that path. ${notSent} Check the path of its "url" in ELICITKIT_SERVERS (MCP servers usually serve /mcp).`,
    ],
    [
      'silent',
      `The MCP server "silent" (${at}/silent) cannot be reached: no answer within 4 s. ${notSent} Try again once it is running, or set ELICITKIT_CONNECT_TIMEOUT_MS to wait longer.`,
    ],
    [
      'missing',
      `The MCP server "missing" (command: nosuch-elicitkit-command --token *** --api-key=***) could not be started: no such program (ENOENT). ${notSent} Check its "command" in ELICITKIT_SERVERS (the program must be on PATH, or a path to it).`,
    ],
  ])('%s: says who, where and why', (server, message) => {
    expect(said(server)).toBe(message);
  });

  it('a host that does not resolve is named', () => {
    expect(said('nohost')).toMatch(
      /^The MCP server "nohost" \(http:\/\/nosuch\.invalid\/mcp\) cannot be reached: host "nosuch\.invalid" (not found|could not be looked up \(DNS did not answer\))\. The request was not sent\. Check its "url" in ELICITKIT_SERVERS\.$/,
    );
  });

  it('a command that exits at once could not be started', () => {
    expect(said('crashes')).toBe(
      `The MCP server "crashes" (command: ${process.execPath} -e "process.exit(3)") could not be started: the command exited before answering. ${notSent} Its error output is in the terminal running the app.`,
    );
    // Pinned to 2026-07-28, the SDK probes a disposable copy first and says what that probe met.
    expect(said('crashes26')).toMatch(
      /^The MCP server "crashes26" \(command: \S+ -e "process\.exit\(3\)"\) cannot be reached: .*connection closed/,
    );
  });

  it('a command that runs but never answers: no answer in time, and it is not left running', async () => {
    // The connect's own deadline (ELICITKIT_CONNECT_TIMEOUT_MS) said so, not the SDK's timeout of a
    // probe and then an initialize that took the whole of it each (twice the deadline in all).
    expect(said('mute')).toMatch(
      /^The MCP server "mute" \(command: .*\) cannot be reached: no answer within 4 s\. .* set ELICITKIT_CONNECT_TIMEOUT_MS to wait longer\.$/,
    );
    await muteEnded();
  });

  it('never shows a header value, a URL’s credentials or query, or the body the server answered', () => {
    const all = JSON.stringify(listing);
    for (const secret of ['ek_secret_token', 'key-value-secret', 'body-secret', 'hunter2', 'sekrit']) {
      expect(all).not.toContain(secret);
    }
    expect(said('creds')).toBe(
      `The MCP server "creds" (http://127.0.0.1:${refusedPort}/mcp?…) cannot be reached: connection refused (nothing listens there). ${notSent} Try again once it is running.`,
    );
  });

  it('the turn that calls a tool of such a server says the same', async () => {
    const textOf = (chunks: Chunk[]) =>
      chunks
        .filter((c) => c.type === 'text-delta')
        .map((c) => c.delta)
        .join('\n');
    expect(textOf((await turn(b, '/ops__status')) as Chunk[])).toBe(said('ops'));
    expect(textOf((await turn(b, '/missing__anything')) as Chunk[])).toBe(said('missing'));
    await muteEnded();
  }, 60_000);
});
