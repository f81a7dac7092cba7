/**
 * `elicitkit serve` whose start or close fails partway exits, saying why. Was: opsdesk's database
 * refusing the start after Redis answered (a Postgres nobody answers at) was printed, and the
 * process never exited — the Redis connection made before it was never closed, holding Node's
 * event loop; and a close whose database could not write its last (a full disk at SIGTERM) left
 * the Redis connection and the relay's heartbeat running: a replica that said it failed, still
 * beating as alive for the others. Each step of a start closes what the steps before it opened;
 * each step of a close runs whatever the one before it threw. The CLI as a process, a Redis of
 * its own.
 */
import { execFile, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres, withPostgres } from '../../../test/support/postgres-server.js';
import { startRedis, type TestRedis, withRedis } from '../../../test/support/redis-server.js';
import { freePort } from '../../../test/support/service.js';
import { CLI, nodeArgs, serveHttpProcess, tempDataDir } from '../../opsdesk/test/harness.js';

const REDIS = withRedis('cli/src/serve-fails-whole.test.ts');
const POSTGRES = withPostgres('cli/src/serve-fails-whole.test.ts');

/** `elicitkit serve` with `args` as a process: killed (code -1) if it has not exited in a minute, far above any start. */
function serve(args: string[]): Promise<{ code: number; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      nodeArgs(CLI, 'serve', ...args),
      { timeout: 60_000, killSignal: 'SIGKILL', env: { ...process.env, ELICITKIT_STATE_SECRET: 'k'.repeat(32) } },
      (error, _out, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, err: stderr }),
    );
  });
}

const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path));

describe.skipIf(!REDIS)('serve --http --redis: a start or a stop that fails partway', () => {
  let redis: TestRedis;
  const startData = tempDataDir();
  const stopData = tempDataDir();
  beforeAll(async () => {
    redis = await startRedis();
  }, 60_000);
  afterAll(async () => {
    await redis?.stop();
    startData.remove();
    stopData.remove();
  });

  it('a Postgres nobody answers at: exit 1 saying so, the process not left running', async () => {
    const database = `postgres://ops:secretpw@127.0.0.1:${await freePort()}/opsdesk`;
    const { code, err } = await serve([
      '--http',
      '0',
      '--redis',
      redis.url,
      '--database',
      database,
      '--data',
      startData.dir,
    ]);
    expect(code, err).toBe(1);
    expect(err).toContain('Cannot use the Postgres database at postgres://ops:***@127.0.0.1:');
    expect(err).not.toContain('secretpw');
  }, 90_000);

  it.skipIf(!PRLIMIT)(
    'SIGTERM with the disk full: exit 1 saying why, its Redis connections and heartbeat gone',
    async () => {
      const replica = await serveHttpProcess(stopData.dir, ['--redis', redis.url]);
      const watcher = new Redis(redis.url);
      try {
        const relay = async () => ({
          connections: String(await watcher.client('LIST'))
            .split('\n')
            .filter((line) => line.includes('name=elicitkit:relay:')).length,
          alive: (await watcher.keys('elicitkit:relay:alive:*')).length,
        });
        expect(await relay()).toEqual({ connections: 1, alive: 1 });
        // A full disk, for this process: no file may grow past the database's size now. Its last
        // checkpoint (the WAL written into the database) fails.
        const size = statSync(join(stopData.dir, 'opsdesk.db')).size;
        execFileSync(PRLIMIT as string, ['--pid', String(replica.child.pid), `--fsize=${size}`]);
        replica.child.kill('SIGTERM');
        // A close that hangs is killed (code null): the bound is far above any close's time.
        const timer = setTimeout(() => replica.child.kill('SIGKILL'), 60_000);
        const [code] = await once(replica.child, 'exit');
        clearTimeout(timer);
        expect(code, replica.errors()).toBe(1);
        expect(replica.errors()).toContain('disk I/O error');
        expect(await relay()).toEqual({ connections: 0, alive: 0 });
      } finally {
        watcher.disconnect();
        if (replica.child.exitCode === null) replica.child.kill('SIGKILL');
      }
    },
    120_000,
  );
});

describe.skipIf(!POSTGRES)('serve on Postgres: a start that fails after the shop opened', () => {
  let postgres: TestPostgres;
  let url: string;
  const data = tempDataDir();
  beforeAll(async () => {
    postgres = await startPostgres();
    url = await postgres.database('opsdesk');
  }, 120_000);
  afterAll(async () => {
    await postgres?.stop();
    data.remove();
  });

  // The workspace's folder is a file: opsdesk's start fails after its shop (a pool of its own on
  // the database) was opened.
  it.each([['--http', '0'], ['--stdio']])(
    '%s: exit 1 saying why, the process not left running',
    async (...how) => {
      writeFileSync(join(data.dir, 'workspace'), 'not a folder');
      const { code, err } = await serve([...how, '--database', url, '--data', data.dir]);
      expect(code, err).toBe(1);
      expect(err).toContain('ENOTDIR');
    },
    90_000,
  );
});
