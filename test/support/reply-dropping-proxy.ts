/**
 * A TCP proxy to Redis for the tests of a reply lost on the way back: once armed with a pattern,
 * it lets the next client chunk containing it through, then swallows Redis's reply to it and
 * drops the connection (both sides), so ioredis sends the command again.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server, Socket } from 'node:net';

export async function replyDroppingProxy(port: number) {
  let armed: string | undefined;
  let dropped = () => {};
  let droppedOnce = new Promise<void>((resolve) => {
    dropped = resolve;
  });
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    let swallow = false;
    upstream.connect(port, '127.0.0.1');
    client.on('data', (chunk: Buffer) => {
      if (armed && chunk.toString('latin1').includes(armed)) {
        armed = undefined;
        swallow = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (swallow) {
        client.destroy();
        upstream.destroy();
        dropped();
        return;
      }
      client.write(chunk);
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arm(pattern: string) {
      armed = pattern;
      droppedOnce = new Promise<void>((resolve) => {
        dropped = resolve;
      });
      return droppedOnce;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
