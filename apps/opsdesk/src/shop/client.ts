import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Limit } from './effect.js';
import type { Executed } from './execute.js';
import type { Inspection, Refusal } from './inspect.js';
import { MEMORY_SIGNAL, type ShopCommand, type ShopRequest, type ShopResponse } from './protocol.js';
import type { Rows } from './run.js';

/** How long one statement may run, from when a shop process starts it, before that process is killed. */
const SQL_TIMEOUT_MS = 10_000;
/** Shop processes: statements of different users run side by side, each user's one at a time. */
const SHOP_WORKERS = 2;
/** Statements one user may have waiting or running; more are refused at once. */
const QUEUED_PER_USER = 8;
/**
 * How long past its deadline an execution that announced its COMMIT is left to finish. The worker
 * itself never commits past the deadline; this only covers the message still on its way.
 */
const COMMIT_GRACE_MS = 1_000;
/**
 * How much resident memory one statement may add to its shop process; past it (plus what it grows
 * in the watchdog's few milliseconds between samples) the process is ended and replaced.
 */
const SHOP_MEMORY_BYTES = 256 * 1024 * 1024;

/**
 * Why the shop did not give an answer: a statement stopped for time or for memory, SQLite's run-time refusal, a
 * temp object, no process, too many waiting — or its process lost once it had announced its COMMIT
 * (`OUTCOME_UNKNOWN`: the write may have been kept, so it is never reported as not done).
 */
export class ShopError extends Error {
  readonly code:
    | 'SQL_TIMEOUT'
    | 'SQL_MEMORY'
    | 'SQL_RUNTIME'
    | 'TEMP_OBJECT'
    | 'SHOP_UNAVAILABLE'
    | 'SHOP_BUSY'
    | 'OUTCOME_UNKNOWN'
    | 'ROLLED_BACK';
  /** `SQL_MEMORY`: the most resident memory a statement may add to its process, bytes. */
  readonly limitBytes: number | undefined;
  constructor(code: ShopError['code'], message: string, limitBytes?: number) {
    super(message);
    this.name = 'ShopError';
    this.code = code;
    this.limitBytes = limitBytes;
  }
}

/** The demo shop as execute_sql sees it: every call runs in one of the shop's processes, in `user`'s turn. */
export interface ShopClient {
  /** Where the shop lives: `shop.db` beside opsdesk's data, or the `shop` schema of its Postgres database. */
  readonly dialect: 'sqlite' | 'postgres';
  inspect(user: string, sql: string): Promise<Inspection | { refusal: Refusal } | { error: string }>;
  read(user: string, sql: string): Promise<Rows>;
  /** Runs a write once, measured, and keeps it only within `limit` (see execute.ts). */
  execute(user: string, sql: string, limit: Limit): Promise<Executed>;
  /** One shop connection's settings, as its process reports them (for checks and tests). */
  settings(): Promise<Record<string, unknown>>;
  /** Stops it: waiting statements fail, connections and processes end. */
  close(): void | Promise<void>;
}

export interface ShopOptions {
  timeoutMs?: number;
  workers?: number;
  queuedPerUser?: number;
  /** Postgres: how long a write whose COMMIT's answer was lost may spend learning whether it was kept (5 s). */
  settleMs?: number;
  /**
   * SQLite: how much resident memory one statement may add to its shop process (256 MiB); past it
   * the process is ended (`SQL_MEMORY`: nothing of the statement kept) and replaced.
   */
  memoryBytes?: number;
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

interface Task {
  user: string;
  command: ShopCommand;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** One shop process and the one task it runs, if any. */
interface Worker {
  process: ChildProcess;
  ready: Promise<void>;
  task?: { id: number; task: Task; timer?: NodeJS.Timeout; committing?: boolean } | undefined;
}

/**
 * Starts (lazily) the shop's processes on `dataDir` and runs statements fairly: each user's in the
 * order sent, one at a time; users take turns for the free processes; writes one at a time (the
 * database has one writer). A statement's time starts when a process starts it — never while it
 * waits behind someone else's — and past it only that process is killed (SQLite rolls back what it
 * had not committed) and replaced: no other statement fails with it.
 *
 * @example
 * const shop = startShop(dataDir);
 * const rows = await shop.read('alice', 'SELECT COUNT(*) AS n FROM orders'); // rows.rows → [{ n: 1200 }]
 */
export function startShop(dataDir: string, options: ShopOptions = {}): ShopClient {
  const timeoutMs = options.timeoutMs ?? SQL_TIMEOUT_MS;
  const size = options.workers ?? SHOP_WORKERS;
  const perUser = options.queuedPerUser ?? QUEUED_PER_USER;
  const memoryBytes = options.memoryBytes ?? SHOP_MEMORY_BYTES;
  const slots: (Worker | undefined)[] = Array.from({ length: size }, () => undefined);
  /** Waiting tasks per user, oldest first. */
  const queues = new Map<string, Task[]>();
  /** When each user last had a task started (a count of starts), so turns go to who waited longest. */
  const served = new Map<string, number>();
  let turns = 0;
  const running = new Set<string>();
  let writing = false;
  let nextId = 1;
  let closed = false;

  const isWrite = (c: ShopCommand) => c.op === 'execute';

  /** Ends `worker`'s task (if it still has it) with `outcome`, and frees the worker and the user's turn. */
  const settle = (worker: Worker, outcome: { value: unknown } | { error: Error }) => {
    const held = worker.task;
    if (!held) return;
    worker.task = undefined;
    clearTimeout(held.timer);
    running.delete(held.task.user);
    if (isWrite(held.task.command)) writing = false;
    if ('error' in outcome) held.task.reject(outcome.error);
    else held.task.resolve(outcome.value);
    queueMicrotask(pump);
  };

  /**
   * `worker` can take no more tasks: what it held fails with `error` — or, for a write it had
   * announced committing, with `OUTCOME_UNKNOWN` — and its slot is free for a fresh one.
   */
  const retire = (worker: Worker, error: ShopError) => {
    const i = slots.indexOf(worker);
    if (i >= 0) slots[i] = undefined;
    settle(worker, { error: worker.task?.committing ? outcomeUnknown() : error });
    worker.process.kill('SIGKILL');
    queueMicrotask(pump);
  };

  const spawn = (): Worker => {
    const { file, execArgv } = workerEntry();
    // stdout ignored: under `serve --stdio` the parent's stdout is the MCP wire.
    const c = fork(file, [dataDir, String(memoryBytes)], {
      execArgv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    const ready = new Promise<void>((resolve, reject) => {
      c.once('message', () => resolve());
      c.once('exit', () => reject(new ShopError('SHOP_UNAVAILABLE', 'the shop process could not start')));
    });
    ready.catch(() => {});
    const worker: Worker = { process: c, ready };
    c.on('message', (m: ShopResponse | 'ready') => {
      const held = worker.task;
      if (m === 'ready' || !held || m.id !== held.id) return;
      if ('committing' in m) {
        // Within its limit and before its deadline: a kill now could land after the COMMIT.
        clearTimeout(held.timer);
        held.committing = true;
        return;
      }
      if (m.ok) settle(worker, { value: m.value });
      else settle(worker, { error: shopError(m.error) });
    });
    // Retired once its channel is drained: a COMMIT announced just before it died is read first
    // ('exit' can come before the channel's last messages).
    c.on('exit', (_code, signal) => {
      let retired = false;
      const stopped = () => {
        if (retired) return;
        retired = true;
        // Its watchdog ended it: the statement it ran grew it past its bound.
        retire(
          worker,
          signal === MEMORY_SIGNAL
            ? new ShopError(
                'SQL_MEMORY',
                `stopped while running the statement: it needed more than the ${mebibytes(memoryBytes)} of memory the shop allows a statement; nothing it did was kept`,
                memoryBytes,
              )
            : new ShopError('SHOP_UNAVAILABLE', 'the shop process stopped'),
        );
      };
      if (!c.connected) return stopped();
      c.once('disconnect', stopped);
      // A channel that never closes (it always does when its process dies) must not hold the task.
      setTimeout(stopped, 1_000).unref();
    });
    // A process that died before its exit is seen: a send into its closed channel fails (EPIPE),
    // which with no listener would be an uncaught exception and take opsdesk down with it.
    c.on('error', () => retire(worker, new ShopError('SHOP_UNAVAILABLE', 'the shop process stopped')));
    c.unref();
    track(c);
    return worker;
  };

  /** Starts `task` on `worker` once it is ready; its time starts then. */
  const start = async (worker: Worker, task: Task) => {
    const id = nextId++;
    worker.task = { id, task };
    try {
      await worker.ready;
    } catch (error) {
      retire(worker, error as ShopError);
      return;
    }
    if (worker.task?.id !== id) return;
    const deadline = Date.now() + timeoutMs;
    const grace = isWrite(task.command) ? COMMIT_GRACE_MS : 0;
    // A message already here (a write's announced COMMIT) is read before the timer acts on it:
    // the check phase comes after the poll phase that delivers it.
    worker.task.timer = setTimeout(
      () =>
        setImmediate(() => {
          if (worker.task?.id !== id || worker.task.committing) return;
          retire(
            worker,
            new ShopError('SQL_TIMEOUT', `the statement ran longer than ${timeoutMs / 1000} s and was stopped`),
          );
        }),
      timeoutMs + grace,
    );
    // An execution's deadline is set now, when it starts: its time is its own, not its wait's.
    const request: ShopRequest = { ...task.command, id, ...(isWrite(task.command) ? { deadline } : {}) };
    worker.process.send(request, (error) => {
      if (error) retire(worker, new ShopError('SHOP_UNAVAILABLE', 'the shop process stopped'));
    });
  };

  /**
   * The next task that may start now: the oldest of the user served longest ago (never served
   * first), among users with nothing running; a write only when no other write runs.
   */
  const next = (): Task | undefined => {
    let pick: { user: string; queue: Task[]; turn: number } | undefined;
    for (const [user, queue] of queues) {
      const head = queue[0];
      if (running.has(user) || !head || (isWrite(head.command) && writing)) continue;
      const turn = served.get(user) ?? -1;
      if (!pick || turn < pick.turn) pick = { user, queue, turn };
    }
    if (!pick) return undefined;
    served.set(pick.user, ++turns);
    const task = pick.queue.shift();
    if (pick.queue.length === 0) queues.delete(pick.user);
    return task;
  };

  const pump = () => {
    if (closed) return;
    for (let i = 0; i < slots.length; i++) {
      if (slots[i]?.task) continue;
      const task = next();
      if (!task) return;
      slots[i] ??= spawn();
      running.add(task.user);
      if (isWrite(task.command)) writing = true;
      void start(slots[i] as Worker, task);
    }
  };

  const call = <T>(user: string, command: ShopCommand): Promise<T> => {
    if (closed) return Promise.reject(new ShopError('SHOP_UNAVAILABLE', 'the shop is closed'));
    const queue = queues.get(user) ?? [];
    const waiting = queue.length + (running.has(user) ? 1 : 0);
    if (waiting >= perUser)
      return Promise.reject(
        new ShopError(
          'SHOP_BUSY',
          `${waiting} of your statements are already waiting or running on the shop; send this one when they have finished`,
        ),
      );
    return new Promise<T>((resolve, reject) => {
      queue.push({ user, command, resolve: resolve as (v: unknown) => void, reject });
      queues.set(user, queue);
      pump();
    });
  };

  return {
    dialect: 'sqlite',
    inspect: (user, sql) => call(user, { op: 'inspect', sql }),
    read: (user, sql) => call(user, { op: 'read', sql }),
    execute: (user, sql, limit) => call(user, { op: 'execute', sql, limit, deadline: 0 }),
    settings: () => call('\u0000settings', { op: 'settings' }),
    async close() {
      closed = true;
      const gone = new ShopError('SHOP_UNAVAILABLE', 'the shop is closed');
      for (const queue of queues.values()) for (const task of queue) task.reject(gone);
      queues.clear();
      // Waited for: a process closing its file writes in the data directory (the WAL checkpointed
      // into shop.db, -wal and -shm removed) — a caller deleting the directory once this returns
      // (doctor's throw-away data) raced it, and the folder was left behind.
      const exited: Promise<unknown>[] = [];
      for (const [i, worker] of slots.entries()) {
        if (!worker) continue;
        slots[i] = undefined;
        if (worker.process.exitCode === null && worker.process.signalCode === null) {
          exited.push(new Promise((resolve) => worker.process.once('exit', resolve)));
          // Its handle is unref'd (an idle shop holds no process open): waited on, it must hold
          // the event loop, or a process with nothing else left exits under the waiting caller
          // (code 13: `serve`'s top-level await never settled).
          worker.process.ref();
        }
        // A process busy inside a statement cannot act on SIGTERM (nor commit what it had not):
        // it is ended at once. An idle one, or one committing, finishes and closes its file
        // cleanly, and gets a moment to.
        const busy = worker.task !== undefined && !worker.task.committing;
        settle(worker, { error: worker.task?.committing ? outcomeUnknown() : gone });
        worker.process.kill(busy ? 'SIGKILL' : 'SIGTERM');
        if (!busy) setTimeout(() => worker.process.kill('SIGKILL'), 2000).unref();
      }
      await Promise.all(exited);
    },
  };
}

function mebibytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
}

function outcomeUnknown(): ShopError {
  return new ShopError(
    'OUTCOME_UNKNOWN',
    'the shop process stopped while committing the statement: it may or may not have been kept',
  );
}

function shopError(error: { name: string; message: string }): ShopError {
  const code =
    error.name === 'TempObjectError'
      ? 'TEMP_OBJECT'
      : error.name === 'ExecutionTimeout'
        ? 'SQL_TIMEOUT'
        : 'SQL_RUNTIME';
  return new ShopError(code, error.message);
}

/**
 * The worker's file: `ELICITKIT_SHOP_WORKER` when set (a build that keeps the worker elsewhere:
 * the tests' one-file build of it), compiled JavaScript beside this module, or its TypeScript
 * source under tsx (dev).
 */
function workerEntry(): { file: string; execArgv: string[] } {
  const given = process.env.ELICITKIT_SHOP_WORKER;
  if (given) return { file: given, execArgv: [] };
  // Paths built at run time (not `new URL(literal, import.meta.url)`), so bundlers that pull this
  // module in (the web app's audit page) do not try to bundle the worker.
  const here = dirname(fileURLToPath(import.meta.url));
  const js = join(/*turbopackIgnore: true*/ here, 'worker-main.js');
  if (existsSync(js)) return { file: js, execArgv: [] };
  const ts = join(/*turbopackIgnore: true*/ here, 'worker-main.ts');
  return { file: ts, execArgv: ['--import', 'tsx', '--conditions=@elicitkit/source'] };
}
