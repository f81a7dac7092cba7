/**
 * The shop's own process: it opens shop.db (and nothing else) and runs what the parent asks, one
 * message at a time. A statement that would run for ever is ended by the parent killing this
 * process: better-sqlite3 has no interrupt and this SQLite has no progress handler, so a process
 * boundary is the only bound that holds for any statement.
 *
 * If the parent itself dies (killed, crashed) while a statement runs, nobody is left to end it,
 * and this process's own thread cannot notice while it is inside SQLite: a watchdog thread, which
 * runs whatever the main thread does, ends the process once it has been re-parented.
 */
import { Worker } from 'node:worker_threads';
import { execute } from './execute.js';
import { inspect } from './inspect.js';
import { openShop } from './open.js';
import type { ShopRequest, ShopResponse } from './protocol.js';
import { read } from './run.js';

const dataDir = process.argv[2];
if (!dataDir || !process.send) {
  process.stderr.write('shop worker: started without a data directory or an IPC channel\n');
  process.exit(2);
}
new Worker(
  `const { workerData } = require('node:worker_threads');
setInterval(() => { if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL'); }, 250);`,
  // Plain JavaScript: not through tsx, whatever this process was started with.
  { eval: true, workerData: { parent: process.ppid }, execArgv: [] },
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

// One request at a time: the parent sends the next only once this one is answered.
process.on('message', async (request: ShopRequest) => {
  let response: ShopResponse;
  try {
    response = { id: request.id, ok: true, value: await handle(request) };
  } catch (error) {
    response = {
      id: request.id,
      ok: false,
      error: {
        name: error instanceof Error ? error.name : 'Error',
        message: error instanceof Error ? error.message : String(error),
      },
    };
  }
  process.send?.(response);
});

const stop = () => {
  shop.close();
  process.exit(0);
};
// The parent went away (or asked us to stop): close the file cleanly and leave.
process.on('disconnect', stop);
process.on('SIGTERM', stop);
