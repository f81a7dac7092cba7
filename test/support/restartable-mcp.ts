/**
 * An HTTP MCP server (the real SDK behind a Node HTTP server, every revision on one `/mcp`) that a
 * test can stop and start again on the same port, as a deploy restarts a server under a client
 * that stays up. Stopping drops every socket at once, as a process that exits does. Each start
 * may declare other tools; what ran is counted across starts, so a test can see a call was never
 * replayed.
 */
import { createServer, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { field, form } from '@elicitkit/form';
import { createElicitkit, createHttpHandler, defineTool, done, type HttpHandler } from '@elicitkit/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod/v4';

/** The tools every start has, and the one a start may add. */
export type RestartableTool = 'status' | 'ask_env' | 'hold' | 'fail' | 'added';

export interface RestartableServer {
  /** `http://127.0.0.1:PORT/mcp`, the same across restarts. */
  url: string;
  port: number;
  /** How many times each tool's handler started running, over every start. */
  runs: Record<RestartableTool, number>;
  /** Resolves when `hold` has started running `n` times in all (the call reached the server). */
  held(n: number): Promise<void>;
  /** Drops every connection and stops listening, as a process that exits. */
  stop(): Promise<void>;
  /** Listens again on the same port; `added` says whether this start declares the `added` tool. */
  start(options?: { added?: boolean }): Promise<void>;
}

export interface RestartableOptions {
  /** Whether the first start declares the `added` tool. */
  added?: boolean;
  /**
   * Whether 2025 clients may open the standalone GET stream (default true). Without it (HTTP 405,
   * which the spec allows) nothing tells a client the server went away until its next request.
   */
  getStream?: boolean;
  /**
   * Whether responses keep their socket open for the next request (default true). A pooled socket
   * the server dropped an instant ago fails the next request with a reset after it was written —
   * which a client must treat as "may have run" — so a test of what happens *after* a restart
   * turns this off and gives every request its own socket.
   */
  keepAlive?: boolean;
}

const envForm = form({
  env: field.select(
    [
      { value: 'dev', title: 'Development' },
      { value: 'prod', title: 'Production' },
    ],
    { title: 'Environment' },
  ),
});

/**
 * Starts the server on a free loopback port.
 *
 * @example
 * const server = await startRestartable();
 * await server.stop();
 * await server.start({ added: true }); // same URL, one more tool
 */
export async function startRestartable(options: RestartableOptions = {}): Promise<RestartableServer> {
  const runs: Record<RestartableTool, number> = { status: 0, ask_env: 0, hold: 0, fail: 0, added: 0 };
  const waiters: { n: number; resolve: () => void }[] = [];
  const ran = (tool: RestartableTool) => {
    runs[tool] += 1;
    for (const w of waiters.filter((w) => runs.hold >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  // A held call waits until its server stops: its connection breaks while it runs.
  let release: () => void = () => {};
  let stopped = new Promise<void>((resolve) => {
    release = resolve;
  });
  let starts = 0;

  const tools = (added: boolean) => {
    const start = starts;
    const list = [
      defineTool({
        name: 'status',
        description: 'Says which start of the server answered.',
        inputSchema: z.object({}),
        async run() {
          ran('status');
          return done(`start ${start}`);
        },
      }),
      defineTool({
        name: 'ask_env',
        description: 'Asks the person for an environment.',
        inputSchema: z.object({}),
        forms: { env: envForm },
        async run(_args, ctx) {
          ran('ask_env');
          const answer = await ctx.ask('env', { message: 'Which environment should the demo deploy to?' });
          if (answer.action !== 'accept') return answer.result();
          return done(`env ${answer.value.env}`);
        },
      }),
      defineTool({
        name: 'hold',
        description: 'Runs until the server stops.',
        inputSchema: z.object({}),
        async run() {
          ran('hold');
          await stopped;
          return done('held');
        },
      }),
      defineTool({
        name: 'fail',
        description: 'A tool that fails.',
        inputSchema: z.object({}),
        async run() {
          ran('fail');
          throw new Error('the fail tool always fails');
        },
      }),
    ];
    if (!added) return list;
    return [
      ...list,
      defineTool({
        name: 'added',
        description: 'Only on starts that declare it.',
        inputSchema: z.object({}),
        async run() {
          ran('added');
          return done('added');
        },
      }),
    ];
  };

  let http: Server | undefined;
  let handler: HttpHandler | undefined;
  let port = 0;
  const listen = async (added: boolean) => {
    starts += 1;
    const kit = createElicitkit();
    const declared = tools(added);
    const h = createHttpHandler(() => kit.createServer({ name: 'restartable', version: `1.0.${starts}` }, declared));
    const node = toNodeHandler(h);
    const server = createServer((req, res) => {
      if (options.keepAlive === false) {
        // The SDK's event streams say `Connection: keep-alive` themselves: this header must win.
        const writeHead = res.writeHead.bind(res) as (status: number, headers?: OutgoingHttpHeaders) => ServerResponse;
        res.writeHead = ((status: number, headers?: OutgoingHttpHeaders) =>
          writeHead(status, { ...headers, connection: 'close' })) as typeof res.writeHead;
      }
      if (req.method === 'GET' && options.getStream === false) {
        res.writeHead(405, { allow: 'POST, DELETE' }).end();
        return;
      }
      void node(req as never, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    port = (server.address() as AddressInfo).port;
    http = server;
    handler = h;
  };
  await listen(options.added === true);

  return {
    get url() {
      return `http://127.0.0.1:${port}/mcp`;
    },
    get port() {
      return port;
    },
    runs,
    held: (n) =>
      new Promise<void>((resolve) => {
        if (runs.hold >= n) resolve();
        else waiters.push({ n, resolve });
      }),
    async stop() {
      const server = http;
      http = undefined;
      if (!server) return;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      release();
      stopped = new Promise<void>((resolve) => {
        release = resolve;
      });
      await handler?.close();
    },
    start: (again = {}) => listen(again.added === true),
  };
}
