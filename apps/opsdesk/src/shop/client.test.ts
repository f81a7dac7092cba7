import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SOURCE_NODE_ARGS, tempDataDir } from '../../test/harness.js';
import { ShopError, type ShopOptions, startShop } from './client.js';
import { openShop } from './open.js';

const FOREVER = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c';

let data: ReturnType<typeof tempDataDir>;
let close = () => {};
afterEach(() => {
  close();
  data.remove();
});

function shopOn(options: ShopOptions = {}) {
  data = tempDataDir();
  openShop(data.dir).close();
  const shop = startShop(data.dir, { timeoutMs: 1500, ...options });
  close = () => shop.close();
  return shop;
}

const reason = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: unknown) => (e instanceof ShopError ? e.code : String(e)),
  );

describe('the shop processes', () => {
  // Was: close() signalled its processes and returned; a process closing its file (the WAL
  // checkpointed into shop.db, -wal and -shm removed) still wrote in the data directory, and
  // doctor, deleting its throw-away directory once opsdesk closed, raced it: the folder was left.
  it('closed, they have ended: nothing of theirs writes in the data directory after', async () => {
    const shop = shopOn({ workers: 2 });
    const { pid } = await shop.settings();
    await Promise.all([shop.read('alice', 'SELECT 1'), shop.read('bob', 'SELECT 1')]);
    await shop.close();
    // Ended and reaped: no such process (a signal 0 to a zombie would still find it).
    expect(() => process.kill(pid as number, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });

  it('stop a statement that never ends by ending its process; the next one gets a fresh process', async () => {
    const shop = shopOn({ workers: 1 });
    const before = (await shop.settings()).pid;
    expect(await reason(shop.read('alice', FOREVER))).toBe('SQL_TIMEOUT');
    const after = await shop.read('alice', 'SELECT COUNT(*) AS n FROM orders');
    expect(after.rows).toEqual([{ n: 1200 }]);
    expect((await shop.settings()).pid).not.toBe(before);
  });

  it('a statement waiting behind a runaway one gets its own time when it starts: it is never failed with it (one process, two users)', async () => {
    const shop = shopOn({ workers: 1 });
    const stuck = reason(shop.read('alice', FOREVER));
    const queued = shop.read('bob', 'SELECT 1 AS one');
    expect(await stuck).toBe('SQL_TIMEOUT');
    expect((await queued).rows).toEqual([{ one: 1 }]);
  });

  it("one user's four runaway statements: each fails on its own time; another user's runs meanwhile", async () => {
    const shop = shopOn();
    const alice = [1, 2, 3, 4].map(() => reason(shop.read('alice', FOREVER)));
    // alice's run one at a time, so bob's has a process of its own at once.
    const bob = await shop.read('bob', 'SELECT COUNT(*) AS n FROM customers');
    expect(bob.rows).toEqual([{ n: 200 }]);
    // Each of alice's is stopped for its own time (not failed as "the process stopped" with another).
    expect(await Promise.all(alice)).toEqual(['SQL_TIMEOUT', 'SQL_TIMEOUT', 'SQL_TIMEOUT', 'SQL_TIMEOUT']);
  });

  it('users take turns: the one served longest ago goes first', async () => {
    const shop = shopOn({ workers: 1 });
    const order: string[] = [];
    const run = (user: string, tag: string) => shop.read(user, 'SELECT 1').then(() => order.push(tag));
    await Promise.all([
      run('alice', 'a1'),
      run('alice', 'a2'),
      run('alice', 'a3'),
      run('bob', 'b1'),
      run('carol', 'c1'),
    ]);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
  });

  it('refuses a user past their share of waiting statements, at once and without touching anyone else', async () => {
    const shop = shopOn({ workers: 1, queuedPerUser: 2 });
    const first = reason(shop.read('alice', FOREVER));
    const second = reason(shop.read('alice', 'SELECT 1'));
    const error = await shop.read('alice', 'SELECT 2').catch((e: unknown) => e as ShopError);
    expect(error).toBeInstanceOf(ShopError);
    expect((error as ShopError).code).toBe('SHOP_BUSY');
    expect((await shop.read('bob', 'SELECT 3 AS three')).rows).toEqual([{ three: 3 }]);
    expect(await first).toBe('SQL_TIMEOUT');
    expect(await second).toBe('resolved');
  });

  it('a process killed from outside fails only what it held, and is replaced', async () => {
    const shop = shopOn({ workers: 1 });
    const { pid } = (await shop.settings()) as { pid: number };
    const held = reason(shop.read('alice', FOREVER));
    const waiting = shop.read('bob', 'SELECT 2 AS two');
    await new Promise((r) => setTimeout(r, 100));
    process.kill(pid, 'SIGKILL');
    expect(await held).toBe('SHOP_UNAVAILABLE');
    expect((await waiting).rows).toEqual([{ two: 2 }]);
  });

  it('end a statement that grows its process past memoryBytes, saying so; within it the value is made', async () => {
    // Made by memset, not randomness: quick on a loaded machine. SQLite's copy and the one handed
    // to JavaScript: about 200 MB in all.
    const string = "SELECT length(printf('%.*c', 100000000, 'x')) AS n";
    const small = shopOn({ workers: 1, memoryBytes: 64 * 1024 * 1024, timeoutMs: 60_000 });
    const before = ((await small.settings()) as { pid: number }).pid;
    const error = await small.read('alice', string).catch((e: unknown) => e as ShopError);
    expect(error).toBeInstanceOf(ShopError);
    expect(error).toMatchObject({
      code: 'SQL_MEMORY',
      message:
        'stopped while running the statement: it needed more than the 64 MiB of memory the shop allows a statement; nothing it did was kept',
    });
    // Replaced: the next statement runs, in a fresh process.
    expect((await small.read('alice', 'SELECT COUNT(*) AS n FROM orders')).rows).toEqual([{ n: 1200 }]);
    expect(((await small.settings()) as { pid: number }).pid).not.toBe(before);
    close();
    data.remove();
    const large = shopOn({ workers: 1, memoryBytes: 640 * 1024 * 1024, timeoutMs: 60_000 });
    expect((await large.read('alice', string)).rows).toEqual([{ n: 100_000_000 }]);
  }, 180_000);

  it('a process killed from outside is not told as out of memory', async () => {
    const shop = shopOn({ workers: 1 });
    const { pid } = (await shop.settings()) as { pid: number };
    const held = shop.read('alice', FOREVER).catch((e: unknown) => e as ShopError);
    await new Promise((r) => setTimeout(r, 100));
    process.kill(pid, 'SIGKILL');
    expect(await held).toMatchObject({ code: 'SHOP_UNAVAILABLE', message: 'the shop process stopped' });
  });

  it('cuts a refusal that quotes a huge value before it crosses to opsdesk', async () => {
    const shop = shopOn({ workers: 1, timeoutMs: 30_000 });
    const error = await shop
      .read('alice', "SELECT json_extract('{}', printf('%.*c', 1000000, 'x'))")
      .catch((e: unknown) => e as ShopError);
    expect(error).toMatchObject({ code: 'SQL_RUNTIME', message: expect.stringMatching(/^bad JSON path/) });
    expect((error as ShopError).message.length).toBeLessThanOrEqual(2001);
  });

  it('a request sent into a process that died before its exit was seen fails, and opsdesk stays up', async () => {
    const shop = shopOn({ workers: 1 });
    const { pid } = (await shop.settings()) as { pid: number };
    process.kill(pid, 'SIGKILL');
    // Blocked, so the exit cannot be seen yet while the kernel closes the dead process's channel:
    // the request below is written into a closed pipe (EPIPE), not failed by the exit handler.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      expect(await reason(shop.read('alice', 'SELECT 1 AS one'))).toBe('SHOP_UNAVAILABLE');
      expect((await shop.read('alice', 'SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
      expect(((await shop.settings()) as { pid: number }).pid).not.toBe(pid);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
  });

  it('reports SQLite run-time errors as SQL_RUNTIME with SQLite’s words, and refuses after close (waiting ones too)', async () => {
    const shop = shopOn({ workers: 1 });
    const error = await shop.read('alice', "SELECT json('{')").catch((e: unknown) => e as ShopError);
    expect(error).toBeInstanceOf(ShopError);
    expect((error as ShopError).code).toBe('SQL_RUNTIME');
    expect((error as ShopError).message).toMatch(/malformed JSON/);
    const running = reason(shop.read('alice', FOREVER));
    const waiting = reason(shop.read('bob', 'SELECT 1'));
    shop.close();
    expect(await running).toBe('SHOP_UNAVAILABLE');
    expect(await waiting).toBe('SHOP_UNAVAILABLE');
    expect(await reason(shop.read('alice', 'SELECT 1'))).toBe('SHOP_UNAVAILABLE');
  });

  it('runs writes one at a time: a runaway write holds the write turn, reads go on beside it', async () => {
    const shop = shopOn();
    const runaway = reason(
      shop.execute('alice', `UPDATE customers SET city = city WHERE id IN (${FOREVER.replace('COUNT(*)', 'x')})`, {
        unasked: true,
      }),
    );
    const read = await shop.read('bob', 'SELECT COUNT(*) AS n FROM orders');
    expect(read.rows).toEqual([{ n: 1200 }]);
    const write = await shop.execute('carol', "UPDATE customers SET city = 'Oslo' WHERE id = 1", { unasked: true });
    expect(write).toMatchObject({ kept: true });
    expect(await runaway).toBe('SQL_TIMEOUT');
  });

  it('a shop process inside a runaway statement does not outlive its parent killed with SIGKILL', async () => {
    data = tempDataDir();
    openShop(data.dir).close();
    const parent = spawn(
      process.execPath,
      [...SOURCE_NODE_ARGS, fileURLToPath(new URL('../../test/shop-parent.ts', import.meta.url)), data.dir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const pid = Number(await new Promise<string>((resolve) => parent.stdout?.once('data', (d) => resolve(String(d)))));
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(true);
    parent.kill('SIGKILL');
    // Its watchdog thread sees it re-parented and ends it, statement and all.
    await expect.poll(alive, { timeout: 10_000 }).toBe(false);
  });

  // Was: "the shop process stopped", a refusal, beside a write that was kept — and a person told
  // nothing happened sends it again.
  /**
   * Runs `f` with shop-dies-after-commit.mjs loaded into the shop's processes (through
   * NODE_OPTIONS: they start on first use and take this process's environment).
   */
  async function diesAfterCommit<T>(f: () => Promise<T>): Promise<T> {
    const hook = fileURLToPath(new URL('../../test/shop-dies-after-commit.mjs', import.meta.url));
    const before = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = `${before ?? ''} --import ${hook}`.trim();
    try {
      return await f();
    } finally {
      if (before === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = before;
    }
  }

  it('a shop process lost after its COMMIT, before it could answer: the outcome is unknown, never "not done"', async () => {
    const shop = shopOn({ workers: 1 });
    const outcome = await diesAfterCommit(() =>
      reason(shop.execute('alice', "UPDATE customers SET city = 'Oslo' WHERE id = 1", { unasked: true })),
    );
    expect(outcome).toBe('OUTCOME_UNKNOWN');
    // It was kept; the next statement gets a fresh process, which sees it.
    const city = await shop.read('alice', 'SELECT city FROM customers WHERE id = 1');
    expect(city.rows).toEqual([{ city: 'Oslo' }]);
  });

  it('a write refused or rolled back in such a process is told as it was: no COMMIT, no doubt', async () => {
    const shop = shopOn({ workers: 1 });
    // Beyond what may run unasked: measured, rolled back, answered.
    const done = await diesAfterCommit(() => shop.execute('alice', 'DELETE FROM order_items', { unasked: true }));
    expect(done).toMatchObject({ kept: false });
    expect((await shop.read('alice', 'SELECT COUNT(*) AS n FROM order_items')).rows).toEqual([{ n: 2403 }]);
  });
});

describe('the script the shop processes run', () => {
  it.runIf(process.platform === 'linux')(
    "is the one ELICITKIT_SHOP_WORKER names (in tests, this run's build of the worker)",
    async () => {
      const named = process.env.ELICITKIT_SHOP_WORKER;
      expect(named).toMatch(/worker-main\.js$/);
      const shop = shopOn({ workers: 1 });
      const { pid } = await shop.settings();
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain(named);
    },
  );

  it('one that is not there: the statement is refused (the shop process stopped), and so is the next', async () => {
    const named = process.env.ELICITKIT_SHOP_WORKER;
    process.env.ELICITKIT_SHOP_WORKER = join(tmpdir(), 'ek-no-such-worker', 'worker-main.js');
    try {
      const shop = shopOn({ workers: 1 });
      expect(await reason(shop.read('alice', 'SELECT 1'))).toBe('SHOP_UNAVAILABLE');
      expect(await reason(shop.read('alice', 'SELECT 1'))).toBe('SHOP_UNAVAILABLE');
    } finally {
      if (named === undefined) delete process.env.ELICITKIT_SHOP_WORKER;
      else process.env.ELICITKIT_SHOP_WORKER = named;
    }
  });
});
