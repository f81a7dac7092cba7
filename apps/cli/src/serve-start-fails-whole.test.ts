/**
 * `elicitkit serve --http --redis` whose start fails after Redis answered exits, saying why. Was:
 * opsdesk's database refusing the start (a Postgres nobody answers at) was printed, and the process
 * never exited — the Redis connection made before it was never closed, holding Node's event loop.
 * Each step of a start now closes what the steps before it opened. The CLI as a process, a Redis
 * of its own, a Postgres port with nobody on it.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres, withPostgres } from '../../../test/support/postgres-server.js';
import { startRedis, type TestRedis, withRedis } from '../../../test/support/redis-server.js';
import { CLI, nodeArgs, tempDataDir } from '../../opsdesk/test/harness.js';

const REDIS = withRedis('cli/src/serve-start-fails-whole.test.ts');
const POSTGRES = withPostgres('cli/src/serve-start-fails-whole.test.ts');

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

/** A loopback port nobody listens on (taken and let go). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

describe.skipIf(!REDIS)('serve --http --redis: a start that fails after Redis answered', () => {
  let redis: TestRedis;
  const data = tempDataDir();
  beforeAll(async () => {
    redis = await startRedis();
  }, 60_000);
  afterAll(async () => {
    await redis?.stop();
    data.remove();
  });

  it('a Postgres nobody answers at: exit 1 saying so, the process not left running', async () => {
    const database = `postgres://ops:secretpw@127.0.0.1:${await closedPort()}/opsdesk`;
    const { code, err } = await serve([
      '--http',
      '0',
      '--redis',
      redis.url,
      '--database',
      database,
      '--data',
      data.dir,
    ]);
    expect(code, err).toBe(1);
    expect(err).toContain('Cannot use the Postgres database at postgres://ops:***@127.0.0.1:');
    expect(err).not.toContain('secretpw');
  }, 90_000);
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
