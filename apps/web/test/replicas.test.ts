/**
 * Two replicas of the web app sharing one Redis, as behind a round-robin balancer without
 * sticky sessions: the chat stream is held by one replica and every answer lands on the other.
 * Each replica is a child process serving the app's route handlers over loopback HTTP
 * (`replica.ts`); Redis is a real `redis-server`. Nothing is mocked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../test/support/redis-server.js';
import {
  answer,
  type Browser,
  close,
  openChat,
  output,
  type ReplicaProcess,
  startReplica,
  stopReplica,
  turn,
} from './http-browser';

const REDIS = withRedis('web/test/replicas.test.ts');

let redis: TestRedis;
let data: string;
let a: ReplicaProcess;
let b: ReplicaProcess;

beforeAll(async () => {
  if (!REDIS) return;
  redis = await startRedis();
  data = mkdtempSync(join(tmpdir(), 'elicitkit-web-replicas-'));
  const env = {
    REDIS_URL: redis.url,
    ELICITKIT_DATA: data,
    ELICITKIT_QUESTION_TIMEOUT_MS: '60000',
    ELICITKIT_MAX_CHATS_PER_ADDRESS: '3',
  };
  a = await startReplica(env);
  // The first replica seeds the data directory before the second one opens it.
  const warm = await openChat(a);
  expect((await fetch(`${a.url}/api/tools`, { headers: { cookie: warm.cookie } })).status).toBe(200);
  await close(a, warm);
  b = await startReplica(env);
}, 120_000);

afterAll(async () => {
  await Promise.all([stopReplica(a), stopReplica(b)]);
  await redis?.stop();
  if (data) rmSync(data, { recursive: true, force: true });
});

describe.skipIf(!REDIS)('two web replicas, one Redis', () => {
  it('runs a production deploy whose every answer lands on the replica not holding the stream', async () => {
    const browser = await openChat(a);
    const stream = await turn(a, browser, '/deploy_service service=order-service');
    const env = await stream.question();
    expect(env.prompt).toMatchObject({ mode: 'form' });
    expect((await answer(b, browser, env.id, { action: 'accept', content: { env: 'prod' } })).status).toBe(200);
    const prod = await stream.question();
    expect(
      (await answer(b, browser, prod.id, { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } }))
        .status,
    ).toBe(200);
    const chunks = await stream.end();
    expect(output(chunks)).toMatchObject({ output: { status: 'done', text: expect.stringContaining('prod') } });
    // Both questions are settled in the stream A holds, and a replay on either replica is refused.
    const settled = chunks.filter(
      (c) => c.type === 'data-elicitation' && (c.data as { status: string }).status === 'answered',
    );
    expect(settled.map((c) => c.id)).toEqual([env.id, prod.id]);
    expect((await answer(a, browser, prod.id, { action: 'decline' })).status).toBe(409);
    expect((await answer(b, browser, prod.id, { action: 'decline' })).status).toBe(409);
    await close(b, browser);
  });

  it('binds questions to their chat on every replica, and validates there', async () => {
    const owner = await openChat(a);
    const stranger = await openChat(b);
    const stream = await turn(a, owner, '/deploy_service service=user-service');
    const q = await stream.question();
    expect((await answer(b, stranger, q.id, { action: 'decline' })).status).toBe(403);
    expect((await answer(b, { ...owner, csrf: stranger.csrf }, q.id, { action: 'decline' })).status).toBe(403);
    const invalid = await answer(b, owner, q.id, { action: 'accept', content: { env: 'qa' } });
    expect(invalid.status).toBe(400);
    expect((await answer(b, owner, 'no-such-question', { action: 'decline' })).status).toBe(404);
    expect((await answer(b, owner, q.id, { action: 'cancel' })).status).toBe(200);
    expect(output(await stream.end())).toMatchObject({ output: { status: 'cancelled' } });
    await close(a, owner);
    await close(a, stranger);
  });

  it('closes a chat from the other replica: its question, streamed by the first, is withdrawn', async () => {
    const browser = await openChat(a);
    const stream = await turn(a, browser, '/deploy_service service=search-service');
    const q = await stream.question();
    expect((await close(b, browser, 'forged')).status).toBe(403);
    expect((await close(b, browser)).status).toBe(204);
    const chunks = await stream.end();
    expect(chunks.filter((c) => c.type === 'data-elicitation').at(-1)).toMatchObject({ data: { status: 'withdrawn' } });
    // Its own page is told, on either replica, that the question was withdrawn.
    expect((await answer(a, browser, q.id, { action: 'decline' })).status).toBe(410);
    expect((await answer(b, browser, q.id, { action: 'decline' })).status).toBe(410);
    expect((await fetch(`${a.url}/api/tools`, { headers: { cookie: browser.cookie } })).status).toBe(401);
  });

  it('counts an address’s chats across replicas', async () => {
    const open = [await openChat(a), await openChat(b), await openChat(a)];
    for (const replica of [a, b]) {
      const refused = await fetch(`${replica.url}/api/chat/info`);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: string }).error).toContain('at most 3');
    }
    expect((await close(b, open[0] as Browser)).status).toBe(204);
    open.push(await openChat(b));
    for (const browser of open.slice(1)) await close(a, browser);
  });
});
