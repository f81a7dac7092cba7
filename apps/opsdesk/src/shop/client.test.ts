import { afterEach, describe, expect, it } from 'vitest';
import { tempDataDir } from '../../test/harness.js';
import { ShopError, startShop } from './client.js';
import { openShop } from './open.js';

const FOREVER = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c';

let data: ReturnType<typeof tempDataDir>;
afterEach(() => data.remove());

function shopOn() {
  data = tempDataDir();
  openShop(data.dir).close();
  return startShop(data.dir, { timeoutMs: 1500 });
}

const reason = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: unknown) => (e instanceof ShopError ? e.code : String(e)),
  );

describe('the shop process', () => {
  it('stops a statement that never ends by ending its process; the next one gets a fresh process', async () => {
    const shop = shopOn();
    const before = (await shop.settings()).pid;
    expect(await reason(shop.read(FOREVER))).toBe('SQL_TIMEOUT');
    // Sent at once after the kill: answered by the new process, not failed with the old one.
    const after = await shop.read('SELECT COUNT(*) AS n FROM orders');
    expect(after.rows).toEqual([{ n: 1200 }]);
    expect((await shop.settings()).pid).not.toBe(before);
    shop.close();
  });

  it('a queued request behind a runaway one is failed with it, not left hanging', async () => {
    const shop = shopOn();
    const stuck = reason(shop.read(FOREVER));
    const queued = reason(shop.read('SELECT 1 AS one'));
    expect(await stuck).toBe('SQL_TIMEOUT');
    expect(['SQL_TIMEOUT', 'SHOP_UNAVAILABLE']).toContain(await queued);
    expect((await shop.read('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    shop.close();
  });

  it('a process killed from outside fails what it held and is replaced', async () => {
    const shop = shopOn();
    const { pid } = (await shop.settings()) as { pid: number };
    const held = reason(shop.read(FOREVER));
    process.kill(pid, 'SIGKILL');
    expect(await held).toBe('SHOP_UNAVAILABLE');
    expect((await shop.read('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    shop.close();
  });

  it('a request sent into a process that died before its exit was seen fails, and opsdesk stays up', async () => {
    const shop = shopOn();
    const { pid } = (await shop.settings()) as { pid: number };
    process.kill(pid, 'SIGKILL');
    // Blocked, so the exit cannot be seen yet while the kernel closes the dead process's channel:
    // the request below is written into a closed pipe (EPIPE), not failed by the exit handler.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      expect(await reason(shop.read('SELECT 1 AS one'))).toBe('SHOP_UNAVAILABLE');
      expect((await shop.read('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
      expect(((await shop.settings()) as { pid: number }).pid).not.toBe(pid);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
    shop.close();
  });

  it('reports SQLite run-time errors as SQLITE_RUNTIME with SQLite’s words, and refuses after close', async () => {
    const shop = shopOn();
    const error = await shop.read("SELECT json('{')").catch((e: unknown) => e as ShopError);
    expect(error).toBeInstanceOf(ShopError);
    expect((error as ShopError).code).toBe('SQLITE_RUNTIME');
    expect((error as ShopError).message).toMatch(/malformed JSON/);
    shop.close();
    expect(await reason(shop.read('SELECT 1'))).toBe('SHOP_UNAVAILABLE');
  });
});
