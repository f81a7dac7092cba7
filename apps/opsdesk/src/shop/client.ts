import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Inspection, Refusal } from './inspect.js';
import type { ShopCommand, ShopRequest, ShopResponse } from './protocol.js';
import type { Rows, WriteEffect } from './run.js';

/** How long one statement may run before its process is killed (and the statement with it). */
const SQL_TIMEOUT_MS = 10_000;

/** A statement ran past its time and was stopped (`SQL_TIMEOUT`), or SQLite refused it at run time (`SQLITE_RUNTIME`). */
export class ShopError extends Error {
  readonly code: 'SQL_TIMEOUT' | 'SQLITE_RUNTIME' | 'TEMP_OBJECT' | 'SHOP_UNAVAILABLE';
  constructor(code: ShopError['code'], message: string) {
    super(message);
    this.name = 'ShopError';
    this.code = code;
  }
}

/** The demo shop as execute_sql sees it: every call runs in the shop's own process. */
export interface ShopClient {
  inspect(sql: string): Promise<Inspection | { refusal: Refusal } | { error: string }>;
  read(sql: string): Promise<Rows>;
  dryRun(sql: string, direct: string[]): Promise<WriteEffect>;
  write(sql: string, direct: string[]): Promise<WriteEffect>;
  /** The shop connection's settings, as the shop process reports them (for checks and tests). */
  settings(): Promise<Record<string, unknown>>;
  close(): void;
}

// Shop processes still alive: killed when this process exits, since one stuck inside a statement
// cannot run its own disconnect handler.
const live = new Set<ChildProcess>();
let exitHook = false;
function track(c: ChildProcess): void {
  live.add(c);
  c.once('exit', () => live.delete(c));
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout; on: ChildProcess };

/**
 * Starts (lazily) the shop's process on `dataDir`. Each request has `timeoutMs`; past it the
 * process is killed — SQLite rolls back whatever it had not committed — and the next request
 * starts a fresh one.
 *
 * @example
 * const shop = startShop(dataDir);
 * const rows = await shop.read('SELECT COUNT(*) AS n FROM orders'); // rows.rows → [{ n: 1200 }]
 */
export function startShop(dataDir: string, options: { timeoutMs?: number } = {}): ShopClient {
  const timeoutMs = options.timeoutMs ?? SQL_TIMEOUT_MS;
  let child: { process: ChildProcess; ready: Promise<void> } | undefined;
  let nextId = 1;
  let closed = false;
  const pending = new Map<number, Pending>();

  /** Rejects what is waiting on `on` (every process when undefined); a new process's requests are not the old one's. */
  const failAll = (error: ShopError, on?: ChildProcess) => {
    for (const [id, p] of pending) {
      if (on && p.on !== on) continue;
      clearTimeout(p.timer);
      p.reject(error);
      pending.delete(id);
    }
  };

  /** `c` can take no more requests: what it held fails, and the next request starts a fresh process. */
  const given = new WeakSet<ChildProcess>();
  const lost = (c: ChildProcess) => {
    if (child?.process === c) child = undefined;
    failAll(new ShopError('SHOP_UNAVAILABLE', 'the shop process stopped'), c);
    // Once: a kill that fails is itself reported as an 'error'.
    if (given.has(c)) return;
    given.add(c);
    c.kill('SIGKILL');
  };

  const spawn = (): { process: ChildProcess; ready: Promise<void> } => {
    const { file, execArgv } = workerEntry();
    // stdout ignored: under `serve --stdio` the parent's stdout is the MCP wire.
    const c = fork(file, [dataDir], {
      execArgv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    // Statements are timed from when the process can take them, not from its start-up.
    const ready = new Promise<void>((resolve, reject) => {
      c.once('message', () => resolve());
      c.once('exit', () => reject(new ShopError('SHOP_UNAVAILABLE', 'the shop process could not start')));
    });
    ready.catch(() => {});
    c.on('message', (m: ShopResponse | 'ready') => {
      if (m === 'ready') return;
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.ok) p.resolve(m.value);
      else
        p.reject(new ShopError(m.error.name === 'TempObjectError' ? 'TEMP_OBJECT' : 'SQLITE_RUNTIME', m.error.message));
    });
    c.on('exit', () => {
      if (child?.process === c) child = undefined;
      failAll(new ShopError('SHOP_UNAVAILABLE', 'the shop process stopped'), c);
    });
    // A process that died before its exit is seen: a send into its closed channel fails (EPIPE),
    // which with no listener would be an uncaught exception and take opsdesk down with it.
    c.on('error', () => lost(c));
    c.unref();
    track(c);
    return { process: c, ready };
  };

  const call = async <T>(request: ShopCommand): Promise<T> => {
    if (closed) throw new ShopError('SHOP_UNAVAILABLE', 'the shop is closed');
    child ??= spawn();
    const current = child;
    await current.ready;
    const c = current.process;
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new ShopError('SQL_TIMEOUT', `the statement ran longer than ${timeoutMs / 1000} s and was stopped`));
        // The only way to stop a statement inside SQLite here: end its process.
        if (child?.process === c) child = undefined;
        c.kill('SIGKILL');
      }, timeoutMs);
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer, on: c });
      // Not delivered (the process is gone): nothing ran, the request fails as the process did.
      c.send({ ...request, id } as ShopRequest, (error) => {
        if (error) lost(c);
      });
    });
  };

  return {
    inspect: (sql) => call({ op: 'inspect', sql }),
    read: (sql) => call({ op: 'read', sql }),
    dryRun: (sql, direct) => call({ op: 'dryRun', sql, direct }),
    write: (sql, direct) => call({ op: 'write', sql, direct }),
    settings: () => call({ op: 'settings' }),
    close() {
      closed = true;
      failAll(new ShopError('SHOP_UNAVAILABLE', 'the shop is closed'));
      const c = child?.process;
      child = undefined;
      if (!c) return;
      c.kill('SIGTERM');
      // A process busy inside a statement cannot act on SIGTERM; it gets a moment, then no choice.
      setTimeout(() => c.kill('SIGKILL'), 2000).unref();
    },
  };
}

/** The worker's file: compiled JavaScript beside this module, or its TypeScript source under tsx (tests, dev). */
function workerEntry(): { file: string; execArgv: string[] } {
  // Paths built at run time (not `new URL(literal, import.meta.url)`), so bundlers that pull this
  // module in (the web app's audit page) do not try to bundle the worker.
  const here = dirname(fileURLToPath(import.meta.url));
  const js = join(/*turbopackIgnore: true*/ here, 'worker-main.js');
  if (existsSync(js)) return { file: js, execArgv: [] };
  const ts = join(/*turbopackIgnore: true*/ here, 'worker-main.ts');
  return { file: ts, execArgv: ['--import', 'tsx', '--conditions=@elicitkit/source'] };
}
