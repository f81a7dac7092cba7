/**
 * What `serveHttp` tells a client when something goes wrong outside the MCP handler: a request
 * no URL can hold is the client's 400, and an error nothing answered is a generic JSON-RPC
 * internal error — its detail (file names, SQL, what the request carried) goes to the operator's
 * log, never into the response. Raw requests on a loopback socket, as a hostile client sends them.
 * The password page's own refusals, on this listener and stdio's, are in `web/page-route.test.ts`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteDb, tempDataDir } from '../test/harness.js';
import { rawRequest } from '../test/raw-http.js';
import { serveHttp } from './serve-http.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function start() {
  const data = tempDataDir();
  const logged: { error: unknown; where: string }[] = [];
  const server = await serveHttp({
    dataDir: data.dir,
    locale: 'en',
    port: 0,
    onError: (error, where) => logged.push({ error, where }),
  });
  cleanup.push(async () => {
    await server.close().catch(() => {});
    data.remove();
  });
  return { server, logged };
}

describe('serveHttp outside the MCP handler', () => {
  it('a request target no URL can hold is a 400, and nothing of the parser is echoed', async () => {
    const { server, logged } = await start();
    for (const target of ['http://[', '//user:pw@[']) {
      const reply = await rawRequest(server.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
      expect(reply.status).toBe('HTTP/1.1 400 Bad Request');
      expect(reply.body).not.toContain('Invalid URL');
    }
    expect(logged).toEqual([]);
  });

  it('an error nothing answered: a generic JSON-RPC internal error, the detail only in the log', async () => {
    const { server, logged } = await start();
    // The database going away under a page request: its error names the connection and the SQL.
    sqliteDb(server.opsdesk).close();
    const reply = await rawRequest(
      server.port,
      'GET /register/abcdefghijklmnopqrstuvwxyz HTTP/1.1\r\nHost: 127.0.0.1\r\n',
    );
    expect(reply.status).toBe('HTTP/1.1 500 Internal Server Error');
    expect(reply.headers).toContain('content-type: application/json');
    expect(JSON.parse(reply.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Internal server error' },
      id: null,
    });
    expect(reply.body).not.toMatch(/database|sqlite|SELECT|register/i);
    // The operator is told what happened and where, but not the page's token.
    expect(logged).toHaveLength(1);
    expect(String(logged[0]?.error)).toMatch(/database/i);
    expect(logged[0]?.where).toBe('GET /register/…');
  });
});
