/**
 * The fixture tools behind `createHttpHandler` on a real loopback port, through our Node listener
 * (`toNodeListener`) as a deployment would serve them, or through the SDK's `toNodeHandler` onto
 * the handler's `fetch` (`adapter: 'fetch'`), as a host with only the Web face would.
 * `Authorization: Bearer <name>` names the identity.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from '../src/http/handler.js';
import { toNodeListener } from '../src/http/node-listener.js';
import { createElicitkit, type ElicitkitOptions } from '../src/kit.js';
import { type AuditLog, auditLog } from './audit-log.js';
import { createStore, fixtureTools, type Store, volatileTools } from './fixture-tools.js';

export interface Loopback {
  url: string;
  handler: HttpHandler;
  store: Store;
  log: AuditLog;
  close(): Promise<void>;
}

/** How a loopback server hands Node's requests to the handler. */
export type Adapter = 'node' | 'fetch';
export const ADAPTERS: Adapter[] = ['node', 'fetch'];

/** The Node listener `adapter` makes of `handler`. */
export function listenerOf(
  handler: HttpHandler,
  adapter: Adapter,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  if (adapter === 'node') return toNodeListener(handler);
  const node = toNodeHandler(handler);
  return (req, res) => node(req as Parameters<typeof node>[0], res);
}

export async function loopback(
  options: HttpHandlerOptions & {
    kit?: ElicitkitOptions;
    authenticated?: boolean;
    adapter?: Adapter;
    /** Serve the volatile tools too (questions that change on every look). */
    volatile?: boolean;
  } = {},
): Promise<Loopback> {
  const { kit: kitOptions, authenticated, adapter = 'node', volatile, ...handlerOptions } = options;
  const store = createStore();
  const log = auditLog();
  const kit = createElicitkit({ audit: log.sink, ...kitOptions });
  const handler = createHttpHandler(
    () =>
      kit.createServer({ name: 'fixture', version: '1' }, [
        ...fixtureTools(store),
        ...(volatile ? volatileTools(store) : []),
      ]),
    {
      ...(authenticated
        ? {
            authenticate: (request: Request) => {
              // `Bearer alice` is alice; so is `Bearer alice_<secret>`, a token that is not her name.
              const token = /^Bearer (\w+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
              return token
                ? { token, clientId: token.replace(/_.*$/, ''), scopes: [] }
                : new Response('who?', { status: 401 });
            },
          }
        : {}),
      ...handlerOptions,
    },
  );
  return { ...(await onLoopback(handler, adapter)), handler, store, log };
}

/** `handler` on a loopback port through `adapter`; `close` closes the handler, then the port. */
export async function onLoopback(
  handler: HttpHandler,
  adapter: Adapter = 'node',
): Promise<{ url: string; close(): Promise<void> }> {
  const node = listenerOf(handler, adapter);
  const server = createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      await handler.close();
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A 2025-11-25 SDK client over HTTP as `identity` (when given). */
export function httpTransport(url: string, identity?: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(
    new URL(url),
    identity ? { requestInit: { headers: { authorization: `Bearer ${identity}` } } } : {},
  );
}

/**
 * A 2025-11-25 client whose person answers with `answer` once `release` resolves (default: never,
 * until the question is withdrawn). `asked` resolves when the question arrives, `withdrawn` when
 * the server withdraws an unanswered one.
 */
export function patientClient(
  name = 'patient',
  answer?: { content: Record<string, string | number | boolean | string[]>; release: Promise<void> },
) {
  const client = new Client({ name, version: '1' }, { capabilities: { elicitation: { form: {} } } });
  let asked!: () => void;
  const wasAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  let withdrawn!: () => void;
  const wasWithdrawn = new Promise<void>((resolve) => {
    withdrawn = resolve;
  });
  client.setRequestHandler('elicitation/create', async (_request, ctx) => {
    asked();
    if (answer) {
      await answer.release;
      return { action: 'accept', content: answer.content };
    }
    return new Promise((_resolve, reject) => {
      ctx.mcpReq.signal.addEventListener('abort', () => {
        withdrawn();
        reject(new Error('withdrawn'));
      });
    });
  });
  return { client, asked: wasAsked, withdrawn: wasWithdrawn };
}

/** Calls `deploy` (which asks for the environment); resolves with the result or the error. */
export function startDeploy(client: Client, signal?: AbortSignal) {
  return client
    .callTool(
      { name: 'deploy', arguments: { service: 'order-service' } },
      { timeout: 60_000, ...(signal ? { signal } : {}) },
    )
    .catch((error: unknown) => error);
}
