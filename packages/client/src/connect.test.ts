/**
 * `connectWithin`: one deadline for the whole connect, over real stdio child processes and a real
 * HTTP socket. No wall-clock figure is asserted: what tells the deadline from the SDK's own
 * timeouts is the error each one throws, and whether a 2025 server that ignores the version probe
 * still gets its turn.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { connectWithin } from './connect.js';
import { ConnectTimeoutError } from './errors.js';
import { revisionOptions } from './revision.js';

const SILENT = ['-e', 'setInterval(() => {}, 1 << 30)'];
// A 2025 server that never answers the probe (`server/discover`), written on the wire itself.
const PROBE_DEAF = [
  '-e',
  `require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
    const { id, method } = JSON.parse(line);
    if (method === 'initialize')
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: {
        protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'probe-deaf', version: '1.0.0' },
      } }) + '\\n');
  });`,
];

const clients: Client[] = [];
let http: Server | undefined;
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  http?.closeAllConnections();
  http = undefined;
});

const newClient = (revision: 'auto' | '2025-11-25') => {
  const client = new Client({ name: 'connect-test', version: '1.0.0' }, revisionOptions(revision));
  clients.push(client);
  return client;
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('connectWithin', () => {
  // 2^31 ms: past what one timer holds, the deadline fired at once (a ConnectTimeoutError, not this).
  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 30 * 24 * 60 * 60_000])(
    'refuses a timeout of %s',
    async (timeoutMs) => {
      const transport = new StdioClientTransport({ command: process.execPath, args: SILENT });
      await expect(connectWithin(newClient('auto'), transport, { revision: 'auto', timeoutMs })).rejects.toThrow(
        RangeError,
      );
      expect(transport.pid).toBeNull();
    },
  );

  it('gives up on a stdio server that never answers at the deadline, and does not leave it running', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: SILENT });
    // The server starts once the probe (on a sibling of its own) has given up: note its pid then.
    const started = new Set<number>();
    const watch = setInterval(() => transport.pid !== null && started.add(transport.pid), 5);
    const error = await connectWithin(newClient('auto'), transport, { revision: 'auto', timeoutMs: 1500 })
      .catch((e: unknown) => e)
      .finally(() => clearInterval(watch));
    expect(error).toBeInstanceOf(ConnectTimeoutError);
    expect(error).toMatchObject({ code: 'CONNECT_TIMEOUT', timeoutMs: 1500 });
    expect(started.size).toBe(1);
    // Not left running (how soon is not asserted: SIGTERM only spares the graceful close's seconds).
    for (const pid of started) await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  });

  it("gives 'auto' over stdio's version probe half the deadline: a server deaf to it still connects", async () => {
    const client = newClient('auto');
    const transport = new StdioClientTransport({ command: process.execPath, args: PROBE_DEAF });
    // Were the probe to take the whole deadline (the SDK's rule), the fallback would never start.
    // Two processes start inside the deadline (the SDK's probe sibling, then the session's own),
    // each a Node start that takes seconds on a loaded host: 3 s failed 1 run in 3 with twelve
    // busy loops beside it (the probe's half spent before its sibling could read). 10 s leaves
    // each half room for a start; the test waits out the probe's 5 s either way.
    await connectWithin(client, transport, { revision: 'auto', timeoutMs: 10_000 });
    expect(client.getServerVersion()).toMatchObject({ name: 'probe-deaf' });
  });

  it('meets its own deadline over HTTP too, before the SDK’s request timeout', async () => {
    http = createServer(() => {
      // Takes the request and never answers.
    });
    await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
    const error = await connectWithin(newClient('2025-11-25'), transport, {
      revision: '2025-11-25',
      timeoutMs: 1000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectTimeoutError);
  });
});
