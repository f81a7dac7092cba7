/**
 * A question in the Redis registry is waited for by the replica that opened it. Was: once that
 * replica stopped — killed, its host gone — the question stayed open in Redis until its deadline,
 * and an answer sent through another replica was taken ('ok': the page told the person so, and
 * refused their retry as already answered) while nothing waited for it: the answer went nowhere.
 * Each registry now keeps an alive mark (`waiterLeaseMs`, renewed every third of it) that its
 * questions name; once the mark lapses the question is settled `withdrawn` and answers to it are
 * refused. A real Redis, and a real process SIGKILLed.
 */
import { spawn } from 'node:child_process';
import { getEventListeners, once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { SOURCE_NODE_ARGS } from '../../../../test/support/children.js';
import { startRedis, type TestRedis, withRedis } from '../../../../test/support/redis-server.js';
import { createRedisRegistry } from './redis.js';

const REDIS = withRedis('registry/redis-waiter-gone.test.ts');

let server: TestRedis;
beforeAll(async () => {
  if (!REDIS) return;
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

// Not the shortest allowed (1 s): a replica renewing every third of it may stall 1.3 s on a loaded machine.
const LEASE = 2_000;

/** A replica of its own: opens a question of chat-1 under `prefix`, prints its id, and waits for it. */
function openingReplica(prefix: string) {
  const registry = fileURLToPath(new URL('./redis.ts', import.meta.url));
  const script = `import { createRedisRegistry } from ${JSON.stringify(registry)};
const registry = createRedisRegistry({ redis: ${JSON.stringify(server.url)}, prefix: ${JSON.stringify(prefix)}, waiterLeaseMs: ${LEASE} });
const id = await registry.open({ owner: 'chat-1' });
console.log(id);
await registry.wait(id);
await registry.close();`;
  const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const id = new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the replica exited (${code}) before opening`)));
  });
  return { child, id };
}

describe.skipIf(!REDIS)('redis registry: a question whose waiting replica stopped', () => {
  it('killed: while it lived, renewing, an answer was taken; once its mark lapsed, answers are refused (withdrawn)', async () => {
    const b = createRedisRegistry({ redis: server.url, prefix: 'gone:', waiterLeaseMs: LEASE });
    onTestFinished(() => b.close());
    const alive = openingReplica('gone:');
    const first = await alive.id;
    // Renewed while it lives: answered two and a half leases on, the answer is taken and reaches it.
    await new Promise((resolve) => setTimeout(resolve, 2.5 * LEASE));
    expect(await b.resolve(first, 'chat-1', { action: 'decline' })).toBe('ok');
    await once(alive.child, 'exit');
    expect(alive.child.exitCode).toBe(0);

    const killed = openingReplica('gone:');
    const id = await killed.id;
    killed.child.kill('SIGKILL');
    await once(killed.child, 'exit');
    // Its mark lapses within a lease: the question reads withdrawn, and no answer is taken.
    await expect
      .poll(async () => (await b.get(id))?.settlement, { timeout: 5 * LEASE })
      .toEqual({ reason: 'withdrawn' });
    expect(await b.resolve(id, 'chat-1', { action: 'accept', content: {} })).toBe('expired');
    expect(await b.resolve(id, 'chat-2', { action: 'accept', content: {} })).toBe('forbidden');
  }, 30_000);

  it('killed, and answered before anyone looked: the answer itself is refused', async () => {
    const b = createRedisRegistry({ redis: server.url, prefix: 'gone2:', waiterLeaseMs: LEASE });
    onTestFinished(() => b.close());
    const admin = new Redis(server.url);
    onTestFinished(async () => {
      await admin.quit();
    });
    const killed = openingReplica('gone2:');
    const id = await killed.id;
    killed.child.kill('SIGKILL');
    await once(killed.child, 'exit');
    await expect.poll(async () => (await admin.keys('gone2:w:*')).length, { timeout: 5 * LEASE }).toBe(0);
    expect(await b.resolve(id, 'chat-1', { action: 'accept', content: { env: 'dev' } })).toBe('expired');
    expect((await b.get(id))?.settlement).toEqual({ reason: 'withdrawn' });
  }, 30_000);

  it('closed: answers to what it opened are refused at once, its wait told the question is unknown', async () => {
    const a = createRedisRegistry({ redis: server.url, prefix: 'closed:' });
    const b = createRedisRegistry({ redis: server.url, prefix: 'closed:' });
    onTestFinished(() => b.close());
    const id = await a.open({ owner: 'chat-1' });
    const signal = new AbortController().signal;
    const waiting = a.wait(id, signal);
    // Its first look back (it listens for the abort once it has found the question pending).
    await expect.poll(() => getEventListeners(signal, 'abort').length).toBe(1);
    await a.close();
    expect(await waiting).toEqual({ reason: 'unknown' });
    expect(await b.resolve(id, 'chat-1', { action: 'decline' })).toBe('expired');
    expect((await b.get(id))?.settlement).toEqual({ reason: 'withdrawn' });
  });

  it('a client with a keyPrefix: its mark under the same prefix, so a live waiter’s questions are answered', async () => {
    const prefixed = new Redis(server.url, { keyPrefix: 'tenant-7:' });
    onTestFinished(async () => {
      await prefixed.quit();
    });
    const a = createRedisRegistry({ redis: prefixed, prefix: 'kp:', waiterLeaseMs: LEASE });
    const b = createRedisRegistry({ redis: prefixed, prefix: 'kp:', waiterLeaseMs: LEASE });
    onTestFinished(async () => {
      await a.close();
      await b.close();
    });
    const admin = new Redis(server.url);
    onTestFinished(async () => {
      await admin.quit();
    });
    const id = await a.open({ owner: 'chat-1' });
    const waiting = a.wait(id);
    expect(await admin.keys('tenant-7:kp:w:*')).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE));
    expect(await b.resolve(id, 'chat-1', { action: 'decline' })).toBe('ok');
    expect(await waiting).toEqual({ reason: 'answered', answer: { action: 'decline' } });
  });

  it.each([0, 999, 1_500.5, Number.NaN])('refuses a waiterLeaseMs of %s', (waiterLeaseMs) => {
    expect(() => createRedisRegistry({ redis: 'redis://127.0.0.1:1', waiterLeaseMs })).toThrow(
      `waiterLeaseMs must be a whole number of milliseconds from 1000, not ${waiterLeaseMs}.`,
    );
  });
});
