/**
 * The shop's own process: it opens shop.db (and nothing else) and runs what the parent asks, one
 * message at a time. A statement that would run for ever is ended by the parent killing this
 * process: better-sqlite3 has no interrupt and this SQLite has no progress handler, so a process
 * boundary is the only bound that holds for any statement.
 *
 * Two things this process's own thread cannot do while it is inside SQLite, a watchdog thread
 * (which runs whatever the main thread does) does for it:
 * - memory: while a request runs, it samples the process's resident memory every few
 *   milliseconds and, once that has grown more than the bound (argv[3], bytes) past what it was
 *   when the request started, ends the process with MEMORY_SIGNAL. This SQLite has no working heap
 *   limit (built without memory statistics), and no deny-list of functions stops a statement
 *   whose values grow without bound (a recursive CTE builds anything); RLIMIT_DATA is no answer
 *   either — V8 on Node 24 dies at random mapping heap under it. Nothing is kept of such a
 *   statement: its transaction never committed.
 * - its parent: if the parent dies (killed, crashed) while a statement runs, nobody is left to
 *   end it; the watchdog ends the process once it has been re-parented.
 */
import { Worker } from 'node:worker_threads';
import { execute } from './execute.js';
import { inspect } from './inspect.js';
import { openShop } from './open.js';
import { MEMORY_SIGNAL, type ShopRequest, type ShopResponse } from './protocol.js';
import { read } from './run.js';

const dataDir = process.argv[2];
const memoryBytes = Number(process.argv[3]);
if (!dataDir || !process.send || !(memoryBytes > 0)) {
  process.stderr.write('shop worker: started without a data directory, a memory bound or an IPC channel\n');
  process.exit(2);
}
/** How often a running request's memory is sampled: what it may overshoot is what it grows in this. */
const SAMPLE_MS = 5;
/**
 * Shared with the watchdog: [0] 1 while a request runs, [1] resident KiB when it started,
 * [2] which request (so a sample never compares one request's memory with another's start).
 */
const running = new Int32Array(new SharedArrayBuffer(12));
new Worker(
  `const { workerData: w } = require('node:worker_threads');
const s = new Int32Array(w.running);
const end = (signal) => {
  try { process.kill(process.pid, signal); } catch {}
  process.kill(process.pid, 'SIGKILL');
};
for (;;) {
  if (Atomics.load(s, 0) === 1) {
    const request = Atomics.load(s, 2);
    const grown = process.memoryUsage.rss() - Atomics.load(s, 1) * 1024;
    if (grown > w.bytes && Atomics.load(s, 0) === 1 && Atomics.load(s, 2) === request) end(w.signal);
    Atomics.wait(s, 0, 1, w.everyMs);
  } else Atomics.wait(s, 0, 0, 250);
  if (process.ppid !== w.parent) end('SIGKILL');
}`,
  // Plain JavaScript: not through tsx, whatever this process was started with.
  {
    eval: true,
    workerData: {
      parent: process.ppid,
      running: running.buffer,
      bytes: memoryBytes,
      signal: MEMORY_SIGNAL,
      everyMs: SAMPLE_MS,
    },
    execArgv: [],
  },
).unref();
const shop = openShop(dataDir);
process.send('ready');

function handle(request: ShopRequest): unknown {
  switch (request.op) {
    case 'inspect':
      return inspect(shop.file, request.sql);
    case 'read':
      return read(shop, request.sql);
    case 'execute':
      return execute(shop, request.sql, request.limit, request.deadline, () => announce(request.id));
    case 'settings':
      return {
        query_only: shop.db.pragma('query_only', { simple: true }),
        trusted_schema: shop.db.pragma('trusted_schema', { simple: true }),
        foreign_keys: shop.db.pragma('foreign_keys', { simple: true }),
        writable_schema: shop.db.pragma('writable_schema', { simple: true }),
        max_page_count: shop.db.pragma('max_page_count', { simple: true }),
        databases: (shop.db.pragma('database_list') as { name: string }[]).map((d) => d.name),
        tempObjects: shop.db.prepare('SELECT COUNT(*) FROM temp.sqlite_schema').pluck().get(),
        inTransaction: shop.db.inTransaction,
        pid: process.pid,
      };
  }
}

/** Tells the parent a COMMIT is next, and resolves once the message is written (not merely queued). */
function announce(id: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const sent = process.send?.({ id, committing: true } satisfies ShopResponse, (error: Error | null) =>
      error ? reject(error) : resolve(),
    );
    if (sent === undefined) reject(new Error('no parent to tell'));
  });
}

/** A refusal's words, cut: SQLite quotes what it refuses (a 10 MB JSON path, say), and all of it would cross to the parent. */
const MAX_ERROR_CHARS = 2000;

// One request at a time: the parent sends the next only once this one is answered.
process.on('message', async (request: ShopRequest) => {
  // The watchdog measures this request from here (a store and a wake: no message, no wait).
  Atomics.store(running, 1, Math.floor(process.memoryUsage.rss() / 1024));
  Atomics.add(running, 2, 1);
  Atomics.store(running, 0, 1);
  Atomics.notify(running, 0);
  let response: ShopResponse;
  try {
    response = { id: request.id, ok: true, value: await handle(request) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    response = {
      id: request.id,
      ok: false,
      error: {
        name: error instanceof Error ? error.name : 'Error',
        message: message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message,
      },
    };
  }
  // Still watched while the answer is copied into the channel.
  process.send?.(response);
  Atomics.store(running, 0, 0);
});

const stop = () => {
  shop.close();
  process.exit(0);
};
// The parent went away (or asked us to stop): close the file cleanly and leave.
process.on('disconnect', stop);
process.on('SIGTERM', stop);
