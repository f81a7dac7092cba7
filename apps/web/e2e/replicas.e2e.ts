/**
 * The built app (`next start`) run as two replicas sharing one real Redis and one data
 * directory, driven over HTTP as a browser would behind a round-robin balancer: the chat stream
 * is held by one replica, every answer lands on the other. The unit suite runs the same
 * scenario on the route handlers (`apps/web/test/replicas.test.ts`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';
import { answer, close, openChat, output, turn } from '../test/http-browser';
import { type App, startApp } from './harness';

let redis: TestRedis;
let data: string;
let a: App;
let b: App;

beforeAll(async () => {
  redis = await startRedis();
  data = mkdtempSync(join(tmpdir(), 'elicitkit-e2e-replicas-'));
  const env = { REDIS_URL: redis.url, ELICITKIT_DATA: data };
  a = await startApp(env);
  const warm = await openChat(a); // seeds the shared data directory before the second replica opens it
  expect((await fetch(`${a.url}/api/tools`, { headers: { cookie: warm.cookie } })).status).toBe(200);
  await close(a, warm);
  b = await startApp(env);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
  if (data) rmSync(data, { recursive: true, force: true });
});

describe('the built app as two replicas on one Redis', () => {
  it('runs a production deploy whose every answer lands on the replica not holding the stream', async () => {
    const browser = await openChat(a);
    const stream = await turn(a, browser, '/deploy_service service=order-service');
    const env = await stream.question();
    expect((await answer(b, browser, env.id, { action: 'accept', content: { env: 'prod' } })).status).toBe(200);
    const prod = await stream.question();
    const ticket = { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } };
    expect((await answer(b, browser, prod.id, ticket)).status).toBe(200);
    expect(output(await stream.end())).toMatchObject({ output: { status: 'done' } });
    expect((await answer(a, browser, prod.id, { action: 'decline' })).status).toBe(409);
    await close(b, browser);
  });

  it('closes a chat from the other replica: the question the first one streams is withdrawn', async () => {
    const browser = await openChat(b);
    const stream = await turn(b, browser, '/deploy_service service=search-service');
    await stream.question();
    expect((await close(a, browser)).status).toBe(204);
    const chunks = await stream.end();
    expect(chunks.filter((c) => c.type === 'data-elicitation').at(-1)).toMatchObject({ data: { status: 'withdrawn' } });
  });
});
