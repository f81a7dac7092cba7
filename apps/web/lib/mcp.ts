import { attach } from '@elicitkit/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { config, type ServerConfig } from './config';
import { sessionRenderer } from './elicitations';
import type { Connection, Session } from './state';

/**
 * The session's connection to one MCP server, opened on first use. Each chat has its own: its
 * questions reach only its own page, and a stdio server runs as its own process.
 */
export function connection(session: Session, server: ServerConfig): Promise<Connection> {
  const existing = session.connections.get(server.name);
  if (existing) return existing;
  const opening = open(session, server);
  session.connections.set(server.name, opening);
  opening.catch(() => session.connections.delete(server.name));
  return opening;
}

async function open(session: Session, server: ServerConfig): Promise<Connection> {
  const client = new Client(
    { name: 'elicitkit-web', version: '0.1.0' },
    server.era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  attach(client, {
    renderer: sessionRenderer(session, server.name),
    policy: {
      // The page's own deadline (the registry's) comes first and says "expired"; this backs it up.
      timeoutMs: config().questionTimeoutMs + 30_000,
      secrets: 'warn',
      rateLimit: { max: 10, perMs: 60_000 },
      maxAttempts: 3,
    },
  });
  const transport =
    server.kind === 'stdio'
      ? new StdioClientTransport({ command: server.command, args: server.args, stderr: 'inherit' })
      : new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } });
  await client.connect(transport, { timeout: 30_000 });
  client.onclose = () => session.connections.delete(server.name);
  return { client, close: () => client.close() };
}

export interface ToolInfo {
  server: string;
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** Every tool of every configured server. With several servers, names are prefixed by the server. */
export async function listTools(session: Session): Promise<ToolInfo[]> {
  const { servers } = config();
  const lists = await Promise.all(
    servers.map(async (server) => {
      const { client } = await connection(session, server);
      const { tools } = await client.listTools();
      return tools.map((t) => ({
        server: server.name,
        name: servers.length > 1 ? `${server.name}__${t.name}` : t.name,
        ...(t.title ? { title: t.title } : {}),
        ...(t.description ? { description: t.description } : {}),
        inputSchema: t.inputSchema as Record<string, unknown>,
      }));
    }),
  );
  return lists.flat();
}

export interface ToolOutcome {
  text: string;
  status?: string;
  isError: boolean;
  structured?: Record<string, unknown>;
}

/** Calls a tool (by its listed name), waiting as long as a person may take to answer. */
export async function callTool(
  session: Session,
  listed: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<ToolOutcome> {
  const { servers } = config();
  const [serverName, name] =
    servers.length > 1 && listed.includes('__')
      ? (listed.split('__', 2) as [string, string])
      : [servers[0]?.name ?? '', listed];
  const server = servers.find((s) => s.name === serverName);
  if (!server) throw new Error(`No MCP server "${serverName}" is configured.`);
  const { client } = await connection(session, server);
  const result = await client.callTool(
    { name, arguments: args },
    { timeout: config().questionTimeoutMs + 60_000, resetTimeoutOnProgress: true, ...(signal ? { signal } : {}) },
  );
  const text = ((result.content ?? []) as { type: string; text?: string }[])
    .map((b) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`))
    .join('\n');
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  const status = typeof structured?.status === 'string' ? structured.status : undefined;
  return {
    text,
    isError: result.isError === true,
    ...(status ? { status } : {}),
    ...(structured ? { structured } : {}),
  };
}
