/**
 * A real Redis for tests: Debian's `redis-server` started on a free loopback port with nothing
 * persisted, stopped by the caller. No mock of Redis anywhere: a store that passes its suite here
 * passes it against the real thing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, serviceFor } from './service.js';

export interface TestRedis {
  /** `redis://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** Kills the server and waits for it to exit. */
  stop(): Promise<void>;
  /** Kills it and starts a fresh one on the same port: with nothing persisted every key is gone; durable, they come back. */
  restart(): Promise<void>;
  /** Kills it, keeping the port (and a durable one's files) for `up`. */
  down(): Promise<void>;
  /** Starts it again on the same port after `down`. */
  up(): Promise<void>;
}

const BINARY = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

/** Whether a Redis binary is installed (`.ci/run` installs Debian's `redis-server`). */
export function redisAvailable(): boolean {
  return existsSync(BINARY);
}

/**
 * Whether this run has Redis for the tests that need it: `npm test` with only Node and npm skips
 * them, saying so once per file; under CI (`CI=true`) they are required, and a missing binary
 * fails the run instead of skipping.
 *
 * @example
 * describe.skipIf(!withRedis('claims/redis.test.ts'))('redis claim store', () => { … });
 */
export function withRedis(file: string): boolean {
  return serviceFor(file, redisAvailable(), `redis-server not found at ${BINARY}`, 'apt-get install redis-server');
}

/** Sends PING over a raw socket; resolves true on +PONG. */
async function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

/** One redis-server on `port` — nothing persisted, or with `durable` an AOF fsynced on every write in that directory: running once it answers PING, or its output when it did not start. */
async function launch(
  port: number,
  durable: string | undefined,
): Promise<{ stop(): Promise<void> } | { failed: string }> {
  const keeping = durable
    ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', durable]
    : ['--appendonly', 'no'];
  const child: ChildProcess = spawn(BINARY, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...keeping], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
  };
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    if (await ping(port)) return { stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  return { failed: output };
}

/**
 * Starts a throw-away Redis. Throws with the server's own output when it does not come up.
 *
 * @example
 * const redis = await startRedis();
 * try { ... new Redis(redis.url) ... } finally { await redis.stop(); }
 */
export async function startRedis(options: { durable?: boolean } = {}): Promise<TestRedis> {
  if (!redisAvailable()) {
    throw new Error(`redis-server not found at ${BINARY} (apt-get install -y redis-server)`);
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const dir = options.durable ? mkdtempSync(join(tmpdir(), 'redis-aof-')) : undefined;
    const removeDir = () => dir && rmSync(dir, { recursive: true, force: true });
    let running = await launch(port, dir);
    if ('stop' in running) {
      const down = () => (running as { stop(): Promise<void> }).stop();
      const up = async () => {
        const again = await launch(port, dir);
        if ('failed' in again) throw new Error(`redis-server did not start again:\n${again.failed}`);
        running = again;
      };
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        async stop() {
          await (running as { stop(): Promise<void> }).stop();
          removeDir();
        },
        restart: async () => {
          await down();
          await up();
        },
        down,
        up,
      };
    }
    removeDir();
    // A port taken between probing and binding: try another one; anything else is fatal.
    if (!/Address already in use/i.test(running.failed)) {
      throw new Error(`redis-server did not start:\n${running.failed}`);
    }
  }
  throw new Error('redis-server: no free port after 5 attempts');
}
