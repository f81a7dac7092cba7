import { attach, revisionOptions } from '@elicitkit/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { config, type ServerConfig } from './config';
import { chatRenderer } from './elicitations';
import type { Locale } from './locale';
import { opsdeskHost } from './opsdesk';
import type { Chat, Connection } from './state';
import { markTimeout } from './timed-out';
import type { ToolInfo, ToolOutput } from './wire';

/**
 * The chat's connection to one MCP server, opened on first use. Each chat has its own MCP
 * session, so its questions reach only its own page. The bundled opsdesk is one server for the
 * whole app (`lib/opsdesk.ts`), reached over loopback HTTP as the chat's user; a configured stdio
 * server still runs as a process per chat.
 */
export function connection(chat: Chat, server: ServerConfig): Promise<Connection> {
  const existing = chat.connections.get(server.name);
  if (existing) return existing;
  const opening = open(chat, server);
  chat.connections.set(server.name, opening);
  opening.catch(() => chat.connections.delete(server.name));
  return opening;
}

async function open(chat: Chat, server: ServerConfig): Promise<Connection> {
  const client = new Client({ name: 'elicitkit-web', version: '0.1.0' }, revisionOptions(server.revision));
  attach(client, {
    renderer: chatRenderer(chat, server.name),
    policy: {
      // The page's own deadline (the registry's) comes first and says "expired"; this backs it up.
      timeoutMs: config().questionTimeoutMs + 30_000,
      secrets: config().secrets,
      rateLimit: { max: 10, perMs: 60_000 },
      maxAttempts: 3,
    },
  });
  await client.connect(await transportFor(chat, server), { timeout: 30_000 });
  client.onclose = () => chat.connections.delete(server.name);
  return { client, close: () => client.close() };
}

async function transportFor(chat: Chat, server: ServerConfig) {
  switch (server.kind) {
    case 'opsdesk': {
      const host = await opsdeskHost();
      return new StreamableHTTPClientTransport(new URL(host.url), {
        requestInit: { headers: { authorization: `Bearer ${host.token(chat.user)}` } },
      });
    }
    case 'stdio':
      return new StdioClientTransport({ command: server.command, args: server.args, stderr: 'inherit' });
    case 'http':
      return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } });
  }
}

/** Every tool of every configured server. With several servers, names are prefixed by the server. */
export async function listTools(chat: Chat): Promise<ToolInfo[]> {
  const { servers } = config();
  const lists = await Promise.all(
    servers.map(async (server) => {
      const { client } = await connection(chat, server);
      const { tools } = await client.listTools();
      return tools.map((t) => ({
        server: server.name,
        name: servers.length > 1 ? `${server.name}__${t.name}` : t.name,
        ...(t.title ? { title: t.title } : {}),
        ...(t.description ? { description: t.description } : {}),
        inputSchema: t.inputSchema as ToolInfo['inputSchema'],
      }));
    }),
  );
  return lists.flat();
}

/** Calls a tool (by its listed name), waiting as long as a person may take to answer. */
export async function callTool(
  chat: Chat,
  listed: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
  locale: Locale = 'en',
): Promise<ToolOutput> {
  const started = Date.now();
  const { servers } = config();
  const [serverName, name] =
    servers.length > 1 && listed.includes('__')
      ? (listed.split('__', 2) as [string, string])
      : [servers[0]?.name ?? '', listed];
  const server = servers.find((s) => s.name === serverName);
  if (!server) throw new Error(`No MCP server "${serverName}" is configured.`);
  const { client } = await connection(chat, server);
  const call = client.callTool(
    { name, arguments: args },
    { timeout: config().questionTimeoutMs + 60_000, resetTimeoutOnProgress: true, ...(signal ? { signal } : {}) },
  );
  chat.calls.add(call);
  const result = await call.finally(() => chat.calls.delete(call));
  const text = ((result.content ?? []) as { type: string; text?: string }[])
    .map((b) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`))
    .join('\n');
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  const status = typeof structured?.status === 'string' ? structured.status : undefined;
  const output: ToolOutput = {
    text,
    isError: result.isError === true,
    ...(status ? { status } : {}),
    ...(structured ? { structured } : {}),
  };
  return markTimeout(chat, started, output, listed, locale);
}
