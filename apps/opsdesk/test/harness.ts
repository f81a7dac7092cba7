/**
 * opsdesk under test through its real interfaces: `elicitkit serve --stdio` as a child process,
 * or `serveHttp` on a loopback port, each driven by a real SDK client.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { revisionOptions } from '@elicitkit/client';
import type { Revision } from '@elicitkit/form';
import type { Locale } from '@elicitkit/server';
import { Client, type ClientCapabilities, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll } from 'vitest';
import { connectStdio, nodeArgs } from '../../../test/support/children.js';
import { attachScript, type Step } from '../../../test/support/mcp.js';
import type { Database } from '../src/db/open.js';
import { accountIdentityOf, ensureLocalOwner } from '../src/identity.js';
import { createOpsdesk, type Opsdesk } from '../src/opsdesk.js';
import { type HttpServing, serveHttp } from '../src/serve-http.js';
import type { MatrixSetup } from './matrix.js';

export const CLI = fileURLToPath(new URL('../../cli/src/cli.ts', import.meta.url));
export { connectStdio, nodeArgs, SOURCE_NODE_ARGS } from '../../../test/support/children.js';
/**
 * What a stdio client sends to reach its first `tools/list` answer, as stdin text. Closing stdin
 * after it ends the server (the stdio binding's rule), so a test can count what a start loads.
 */
export const HANDSHAKE_THEN_LIST = `${[
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
]
  .map((l) => JSON.stringify(l))
  .join('\n')}\n`;

export interface Conn {
  client: Client;
  seen: Record<string, unknown>[];
  script: Step[];
  close(): Promise<void>;
}

export interface ClientOptions {
  /** The protocol revision the client speaks. */
  revision: Revision;
  /** Default: form + url. */
  capabilities?: ClientCapabilities;
  script?: Step[];
  /** The name the client announces (default `opsdesk-test-<revision>`): a known client's name plays its quirks. */
  clientName?: string;
  /** HTTP only: the transport's `fetch` (default the global one; `serving.fetch` reaches the endpoint in process). */
  fetch?: typeof fetch;
}

export function tempDataDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'opsdesk-test-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function makeClient(options: ClientOptions): Omit<Conn, 'close'> {
  const seen: Record<string, unknown>[] = [];
  const script = options.script ?? [];
  const capabilities = options.capabilities ?? { elicitation: { form: {}, url: {} } };
  const client = new Client(
    { name: options.clientName ?? `opsdesk-test-${options.revision}`, version: '1.0.0' },
    { capabilities, ...revisionOptions(options.revision) },
  );
  if (capabilities.elicitation) attachScript(client, script, seen);
  return { client, seen, script };
}

/** `elicitkit serve --stdio` from source, as the given user. */
export async function stdioClient(
  dataDir: string,
  options: ClientOptions & {
    user?: string;
    timeoutMs?: number;
    locale?: Locale;
    /** More `serve` flags, and more environment for the server process. */
    args?: string[];
    env?: Record<string, string>;
  },
): Promise<Conn> {
  const c = makeClient(options);
  const args = nodeArgs(CLI, 'serve', '--stdio', '--data', dataDir, '--lang', options.locale ?? 'en');
  if (options.user) args.push('--user', options.user);
  if (options.timeoutMs) args.push('--timeout-ms', String(options.timeoutMs));
  args.push(...(options.args ?? []));
  const env = options.env ? { env: { ...getDefaultEnvironment(), ...options.env } } : {};
  await connectStdio(c.client, { command: process.execPath, args, ...env }, { timeout: 60_000 });
  return { ...c, close: () => c.client.close() };
}

/** A client on opsdesk's HTTP endpoint with a bearer token. */
export async function httpClient(url: string, token: string, options: ClientOptions): Promise<Conn> {
  const c = makeClient(options);
  await c.client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
    { timeout: 60_000 },
  );
  return { ...c, close: () => c.client.close() };
}

export const tokenOf = (s: HttpServing, user: string): string =>
  s.newTokens.find((t) => t.username === user)?.token ?? '';

/**
 * The outcome matrix's setup on `serveHttp`: clients over loopback HTTP (`socket`), or through
 * `serving.fetch`, the same handler reached in process (`in-process`, as the web app's chats).
 */
export function httpMatrixSetup(via: 'socket' | 'in-process'): (revision: Revision) => Promise<MatrixSetup> {
  return async (revision) => {
    const data = tempDataDir();
    const slowData = tempDataDir();
    const server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
    const slowServer = await serveHttp({ dataDir: slowData.dir, locale: 'en', port: 0, timeoutMs: 300 });
    const over = (s: HttpServing) => (via === 'in-process' ? { fetch: s.fetch } : {});
    const [main, bare, slow] = await Promise.all([
      httpClient(server.url, tokenOf(server, 'alice'), { revision, ...over(server) }),
      httpClient(server.url, tokenOf(server, 'alice'), { revision, capabilities: {}, ...over(server) }),
      httpClient(slowServer.url, tokenOf(slowServer, 'alice'), { revision, ...over(slowServer) }),
    ]);
    return {
      dataDir: data.dir,
      slowDataDir: slowData.dir,
      main,
      bare,
      slow,
      async close() {
        await Promise.all([main.close(), bare.close(), slow.close()]);
        await server.close();
        await slowServer.close();
        data.remove();
        slowData.remove();
      },
    };
  };
}

/** Which file a table lives in: the demo shop's tables are in shop.db, everything else in opsdesk.db. */
const SHOP = new Set(['customers', 'products', 'orders', 'order_items']);

/** A read-only look at opsdesk's database, from the test process (WAL allows it beside the server). */
export function peek<T = unknown>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  return peekFile<T>(join(dataDir, 'opsdesk.db'), sql, ...params);
}

/** The same look at the demo shop's database. */
export function peekShop<T = unknown>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  return peekFile<T>(join(dataDir, 'shop.db'), sql, ...params);
}

function peekFile<T>(file: string, sql: string, ...params: unknown[]): T[] {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

export const count = (dataDir: string, table: string): number =>
  (
    (SHOP.has(table) ? peekShop : peek)<{ n: number }>(dataDir, `SELECT COUNT(*) AS n FROM ${table}`)[0] as {
      n: number;
    }
  ).n;

/** opsdesk in this process over a linked in-memory pair (2025-11-25, the only revision it links): fast, for tool-level tests. */
export async function memoryClient(
  dataDir: string,
  options: Omit<ClientOptions, 'revision'> & {
    user?: string;
    locale?: Locale;
    sqlTimeoutMs?: number;
    /** Make `user` the local owner (`ensureLocalOwner`) before the client starts as it. */
    localOwner?: boolean;
  } = {},
): Promise<Conn & { opsdesk: Opsdesk }> {
  const user = options.user ?? 'alice';
  // The account under `user` when this client starts (a name not an account's: calls are refused).
  let caller: string | undefined;
  const opsdesk = await createOpsdesk({
    dataDir,
    locale: options.locale ?? 'en',
    identify: () => caller,
    ...(options.sqlTimeoutMs ? { sqlTimeoutMs: options.sqlTimeoutMs } : {}),
  });
  if (options.localOwner) await opsdesk.store.transaction(ensureLocalOwner(user));
  caller = await accountIdentityOf(opsdesk.store, user);
  opsdesk.links.setBaseUrl('http://127.0.0.1:9');
  const c = makeClient({ ...options, revision: '2025-11-25' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const server = opsdesk.createServer();
  await server.connect(a);
  await c.client.connect(b);
  return {
    ...c,
    opsdesk,
    async close() {
      await c.client.close();
      await server.close();
      await opsdesk.close();
    },
  };
}

export interface HttpProcess {
  url: string;
  /** Bearer tokens printed on first start (empty on later starts: they are shown once). */
  tokens: Record<string, string>;
  child: ChildProcess;
  /** What it printed on stdout so far. */
  output(): string;
  /** What it printed on stderr so far (read as it comes: a pipe nobody reads would block its writes once full). */
  errors(): string;
  /** SIGTERM, and wait for a clean exit. */
  stop(): Promise<number | null>;
}

/** `elicitkit serve --http 0 --data DIR` as a child process, once it prints its endpoint. */
export async function serveHttpProcess(
  dataDir: string,
  extra: string[] = [],
  options: { tokens?: boolean } = {},
): Promise<HttpProcess> {
  // Tokens are printed only on the first start on a data directory (or database: say so in `tokens`).
  const fresh = options.tokens ?? !existsSync(join(dataDir, 'opsdesk.db'));
  const child = spawn(process.execPath, nodeArgs(CLI, 'serve', '--http', '0', '--data', dataDir, ...extra), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    err += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      if (fresh ? /bob\s+ek_/.test(out) : /serving/.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
  return {
    url: /serving (\S+)/.exec(out)?.[1] ?? '',
    tokens: Object.fromEntries([...out.matchAll(/^\s+(\w+)\s+(ek_\S+)$/gm)].map((m) => [m[1], m[2]])),
    child,
    output: () => out,
    errors: () => err,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}

/**
 * opsdesk's HTTP endpoint on a loopback port, on a throw-away data directory, for the tests of
 * the enclosing `describe`: started before them, closed (and its data removed) after. Read
 * `server` and `dataDir` inside the tests, once started.
 * @example const served = httpOpsdeskForSuite(); it('…', () => fetch(served.server.url));
 */
export function httpOpsdeskForSuite(): { server: HttpServing; dataDir: string } {
  const served = {} as { server: HttpServing; dataDir: string };
  let data: ReturnType<typeof tempDataDir> | undefined;
  beforeAll(async () => {
    data = tempDataDir();
    served.dataDir = data.dir;
    served.server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
  });
  afterAll(async () => {
    await served.server?.close();
    data?.remove();
  });
  return served;
}

/** The SQLite connection of an opsdesk opened on SQLite (the default): for tests that look inside it. */
export function sqliteDb(opsdesk: Opsdesk): Database {
  if (opsdesk.store.dialect !== 'sqlite') throw new Error('this opsdesk keeps its state in Postgres, not SQLite');
  return opsdesk.store.db;
}
