/**
 * docs/web.md — one turn at a time in a chat, and no change of identity while it runs, across
 * instances: the chat's turn is marked in Redis, owned by the instance streaming it, renewed while
 * it runs and removed when it ends however it ends; an instance that dies leaves a mark that
 * lapses. Was: the mark was each process's own, so with a turn waiting on a question on one
 * replica the other changed the chat's user (200, and the question was withdrawn) and ran a
 * second turn beside it. Two replicas (child processes serving the app's route handlers over
 * loopback HTTP), a real `redis-server` (its keyspace notifications say when the mark is renewed,
 * removed or lapses: no test sleeps), the bundled opsdesk, and a model endpoint the test answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../test/support/redis-server.js';
import { chatKey } from '../lib/chats';
import {
  answer,
  type Browser,
  close,
  identity,
  openChat,
  output,
  postTurn,
  type ReplicaProcess,
  startReplica,
  stopReplica,
  turn,
} from './http-browser';

const REDIS = withRedis('web/test/turn-replicas.test.ts');

/** A model endpoint that holds each request until the test fails it (400: not retried). */
function heldModel() {
  const held: ServerResponse[] = [];
  let arrived: () => void = () => undefined;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      held.push(res);
      arrived();
    });
  });
  return {
    server,
    /** Resolves once a request is held. */
    requested: () =>
      new Promise<void>((resolve) => {
        if (held.length > 0) resolve();
        else arrived = resolve;
      }),
    fail() {
      for (const res of held.splice(0))
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'model says no', type: 'invalid_request_error' } }));
    },
  };
}

/** The keyspace events of a chat's turn mark, as Redis publishes them. */
async function watchMark(url: string, browser: Browser) {
  const id = browser.cookie.replace(/^ek_chat=/, '');
  const channel = `__keyspace@0__:elicitkit:web:turn:${chatKey(id)}`;
  const sub = new Redis(url);
  const events: string[] = [];
  let changed: () => void = () => undefined;
  sub.on('message', (_channel: string, event: string) => {
    events.push(event);
    changed();
  });
  await sub.subscribe(channel);
  return {
    events,
    /** Resolves once the events seen satisfy `done`. */
    async until(done: (events: string[]) => boolean): Promise<void> {
      while (!done(events))
        await new Promise<void>((resolve) => {
          changed = resolve;
        });
    },
    close: () => sub.quit(),
  };
}

let redis: TestRedis;
let data: string;
let a: ReplicaProcess;
let b: ReplicaProcess;
const model = heldModel();

beforeAll(async () => {
  if (!REDIS) return;
  await new Promise<void>((resolve) => model.server.listen(0, '127.0.0.1', resolve));
  redis = await startRedis();
  const admin = new Redis(redis.url);
  await admin.config('SET', 'notify-keyspace-events', 'Kg$x');
  await admin.quit();
  data = mkdtempSync(join(tmpdir(), 'elicitkit-web-turn-replicas-'));
  const env = {
    REDIS_URL: redis.url,
    ELICITKIT_DATA: data,
    ELICITKIT_QUESTION_TIMEOUT_MS: '60000',
    // Short, so that a dead replica's mark lapses within the test (renewed every third of it); not
    // the shortest allowed, 1 s, which a replica stalled 0.7 s on a loaded machine lets lapse.
    ELICITKIT_TURN_LEASE_MS: '3000',
    OPENAI_BASE_URL: `http://127.0.0.1:${(model.server.address() as AddressInfo).port}/v1`,
    OPENAI_API_KEY: 'k',
    ELICITKIT_MODEL: 'm-1',
  };
  a = await startReplica(env);
  // The first replica seeds the data directory before the second one opens it.
  const warm = await openChat(a);
  expect((await fetch(`${a.url}/api/tools`, { headers: { cookie: warm.cookie } })).status).toBe(200);
  await close(a, warm);
  b = await startReplica(env);
}, 120_000);

afterAll(async () => {
  // The last test kills replica A: it has exited already.
  await Promise.all([a?.child.signalCode ? undefined : stopReplica(a), stopReplica(b)]);
  await redis?.stop();
  await new Promise((resolve) => model.server.close(resolve));
  if (data) rmSync(data, { recursive: true, force: true });
});

describe.skipIf(!REDIS)('a chat’s turn, across replicas', () => {
  it('refuses, on the other replica, an identity change and a second turn while a turn runs', async () => {
    const browser = await openChat(a);
    const stream = await turn(a, browser, '/deploy_service service=order-service');
    const q = await stream.question();
    const changed = await identity(b, browser, 'bob');
    expect(changed.status).toBe(409);
    expect(((await changed.json()) as { error: string }).error).toContain('A turn is already running');
    const second = await postTurn(b, browser, '/list_deployments');
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: string }).error).toContain('already running');
    // A's question is still open: answered from B, the deploy goes on as the owner.
    expect((await answer(b, browser, q.id, { action: 'accept', content: { env: 'staging' } })).status).toBe(200);
    expect(output(await stream.end())).toMatchObject({ output: { status: 'done' } });
    // The turn has ended: either replica takes the next.
    expect((await identity(b, browser, 'bob')).status).toBe(200);
    expect(JSON.stringify(await (await turn(b, browser, '/list_deployments')).end())).not.toContain('order-service');
    await close(a, browser);
  });

  it('releases the turn that ends by an error', async () => {
    const browser = await openChat(a);
    const stream = await turn(a, browser, 'deploy order-service');
    await model.requested();
    expect((await identity(b, browser, 'bob')).status).toBe(409);
    expect((await postTurn(b, browser, '/list_deployments')).status).toBe(409);
    model.fail();
    const chunks = await stream.end();
    expect(chunks.filter((c) => c.type === 'error')).toHaveLength(1);
    expect((await identity(b, browser, 'bob')).status).toBe(200);
    await close(b, browser);
  });

  it('releases the turn whose page disconnects', async () => {
    const browser = await openChat(a);
    const mark = await watchMark(redis.url, browser);
    const page = new AbortController();
    const stream = await turn(a, browser, '/deploy_service service=order-service', page.signal);
    await stream.question();
    expect((await identity(b, browser, 'bob')).status).toBe(409);
    page.abort();
    await mark.until((events) => events.includes('del') || events.includes('expired'));
    expect(mark.events).not.toContain('expired');
    expect((await identity(b, browser, 'bob')).status).toBe(200);
    await mark.close();
    await close(b, browser);
  });

  it('keeps the mark while its replica lives, and lets it lapse when the replica dies', async () => {
    const browser = await openChat(a);
    const mark = await watchMark(redis.url, browser);
    const stream = await turn(a, browser, '/deploy_service service=order-service');
    const q = await stream.question();
    expect((await identity(b, browser, 'bob')).status).toBe(409);
    // Set with its lease (its first 'expire'), renewed four times — past that lease, a renewal
    // every third of one — and never lapsed.
    await mark.until((events) => events.filter((e) => e === 'expire').length >= 5 || events.includes('expired'));
    expect(mark.events).not.toContain('expired');
    expect((await identity(b, browser, 'bob')).status).toBe(409);
    // Killed: nothing of A's runs to remove its mark.
    const exited = new Promise((resolve) => a.child.once('exit', resolve));
    a.child.kill('SIGKILL');
    await exited;
    await mark.until((events) => events.includes('expired'));
    expect(mark.events).not.toContain('del');
    // The chat goes on on B as a new chat: the question the dead replica showed is withdrawn by
    // the change (its own page is told 410), and it is another chat's for the new one (403).
    const before = { ...browser };
    expect((await identity(b, browser, 'bob')).status).toBe(200);
    expect((await answer(b, before, q.id, { action: 'decline' })).status).toBe(410);
    expect((await answer(b, browser, q.id, { action: 'decline' })).status).toBe(403);
    expect(JSON.stringify(await (await turn(b, browser, '/list_deployments')).end())).toContain('search-service');
    await mark.close();
    await close(b, browser);
  });
});
