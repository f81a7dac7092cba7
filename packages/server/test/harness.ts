/**
 * Real SDK clients on every path the server library must serve. Nothing here mocks the protocol:
 * each path is a real transport (linked in-memory pair, the Web-standard HTTP handler called
 * in-process, a stdio child process) between a real `Client` and a real `McpServer`.
 */
import { fileURLToPath } from 'node:url';
import { Client, type ClientCapabilities, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport, type McpServer } from '@modelcontextprotocol/server';
import { connectStdio, nodeArgs } from '../../../test/support/children.js';
import { attachScript, callTool, type Step } from '../../../test/support/mcp.js';

export type { Reply, Step } from '../../../test/support/mcp.js';

export interface Connected {
  client: Client;
  /** Every elicitation/create params the client received, in order. */
  seen: Record<string, unknown>[];
  /** Replies still unused. */
  script: Step[];
  close(): Promise<void>;
}

export type PathName =
  | 'memory-2025-11-25'
  | 'memory-2025-06-18'
  | 'http-2026-07-28'
  | 'stdio-2025-11-25'
  | 'stdio-2026-07-28';

export interface ConnectOptions {
  /** Client capabilities; default form + url (2025-06-18: a bare `elicitation: {}`). */
  capabilities?: ClientCapabilities;
  script?: Step[];
  /** For stdio: extra environment for the child. */
  env?: Record<string, string>;
  /** The name the client announces (default `test-<path>`): a known client's name plays its quirks. */
  clientName?: string;
}

const LONG = { timeout: 60_000 };

/** Connects a client to servers built by `factory` over the named path. */
export async function connect(
  path: PathName,
  factory: () => McpServer,
  options: ConnectOptions = {},
): Promise<Connected> {
  const seen: Record<string, unknown>[] = [];
  const script = options.script ?? [];
  const legacyBare = path === 'memory-2025-06-18';
  const capabilities =
    options.capabilities ?? (legacyBare ? { elicitation: {} } : { elicitation: { form: {}, url: {} } });
  const modern = path.endsWith('2026-07-28');
  const client = new Client(
    { name: options.clientName ?? `test-${path}`, version: '1.0.0' },
    {
      capabilities,
      ...(modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      ...(legacyBare ? { supportedProtocolVersions: ['2025-06-18'] } : {}),
    },
  );
  if (capabilities.elicitation) attachScript(client, script, seen);
  let closeServer = async () => {};
  if (path.startsWith('memory')) {
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    const server = factory();
    await server.connect(serverSide);
    await client.connect(clientSide, LONG);
    closeServer = () => server.close();
  } else if (path.startsWith('http')) {
    const handler = createMcpHandler(factory);
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
      LONG,
    );
    closeServer = () => handler.close();
  } else {
    const entry = fileURLToPath(new URL('./stdio-server.ts', import.meta.url));
    await connectStdio(
      client,
      {
        command: process.execPath,
        args: nodeArgs(entry),
        env: { ...(process.env as Record<string, string>), ...options.env },
      },
      LONG,
    );
  }
  return {
    client,
    seen,
    script,
    async close() {
      await client.close();
      await closeServer();
    },
  };
}

/** Calls a tool with a human-length timeout and returns its structured status and text. */
export function call(c: Connected, name: string, args: Record<string, unknown> = {}) {
  return callTool(c.client, name, args);
}
