/**
 * serveHttp with `redis` (replicas) connects to Redis before it opens anything. A Redis that
 * refuses the connection was refused at once; one that takes the connection and never answers
 * (a wrong port, a stopped process behind a proxy, a frozen Redis) held the start for ever:
 * ioredis's connectTimeout covers the TCP connection only, not its ready check. Now the whole
 * greeting (connection, ready check, PING) is bounded, and either way the start fails saying
 * where, with the password left out, before any database is opened.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/service.js';
import { tempDataDir } from '../test/harness.js';
import { RedisUnavailableError } from './replicas.js';
import { serveHttp } from './serve-http.js';

let data: ReturnType<typeof tempDataDir> | undefined;
let deaf: { server: Server; sockets: Set<Socket>; drained: () => Promise<void> } | undefined;
afterEach(async () => {
  data?.remove();
  data = undefined;
  if (deaf) {
    for (const socket of deaf.sockets) socket.destroy();
    await new Promise<void>((resolve) => deaf?.server.close(() => resolve()));
    deaf = undefined;
  }
});

/** A TCP server on loopback that takes every connection, reads what it is sent and never answers. */
async function deafServer(): Promise<number> {
  const sockets = new Set<Socket>();
  const waiting: (() => void)[] = [];
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) for (const resolve of waiting.splice(0)) resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Resolves once every connection it took has been closed by the other end.
  const drained = () =>
    sockets.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve));
  deaf = { server, sockets, drained };
  return (server.address() as { port: number }).port;
}

async function startFails(url: string): Promise<RedisUnavailableError> {
  data = tempDataDir();
  const error = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0, redis: url }).then(
    (serving) => {
      void serving.close();
      throw new Error('serveHttp started without its Redis');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RedisUnavailableError);
  // Nothing was opened: no database made in the data directory.
  expect(existsSync(join(data.dir, 'opsdesk.db'))).toBe(false);
  return error as RedisUnavailableError;
}

describe('serveHttp with replicas, when Redis cannot be used', () => {
  it('a Redis that takes the connection and never answers: the start fails, saying so, password left out', async () => {
    const port = await deafServer();
    const error = await startFails(`redis://:s3cret-pass@127.0.0.1:${port}`);
    expect(error.message).toMatch(/^Cannot reach Redis at redis:\/\/.*127\.0\.0\.1:\d+.*: no answer within 5 s/);
    expect(error.message).not.toContain('s3cret-pass');
    // It let go of the connection (no client left retrying in the background).
    await deaf?.drained();
  }, 30_000);

  it('nothing listening: the start fails at once, saying where', async () => {
    const port = await freePort();
    const error = await startFails(`redis://127.0.0.1:${port}`);
    expect(error.message).toContain(`Cannot reach Redis at redis://127.0.0.1:${port}`);
  }, 30_000);
});
