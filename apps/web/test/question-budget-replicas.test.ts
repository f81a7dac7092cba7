/**
 * docs/web.md — a chat is asked at most 10 questions a minute by one server. With several
 * instances behind a balancer, a chat's turns may stream from any of them: the budget is kept in
 * Redis, so each instance counts into the chat's one budget. Was: each instance counted only the
 * turns it streamed, so two instances let a server ask 20 questions a minute. Two replicas (child
 * processes serving the app's route handlers over loopback HTTP), a real `redis-server`, a real
 * stdio MCP server (raw JSON-RPC lines) asking six questions at once per call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis, withRedis } from '../../../test/support/redis-server.js';
import {
  answer,
  type Browser,
  openChat,
  type Replica,
  type ReplicaProcess,
  startReplica,
  stopReplica,
  turn,
} from './http-browser';
import { rawServer } from './raw-server';

const REDIS = withRedis('web/test/question-budget-replicas.test.ts');

const SERVER = rawServer({
  serverInfo: { name: 'chatty', version: '1.0.0' },
  tools: [{ name: 'six', inputSchema: { type: 'object', properties: {} } }],
  call: `(m, ask, reply) => {
    const asks = [];
    for (let i = 1; i <= 6; i++)
      asks.push(ask({ mode: 'form', message: 'Question ' + i,
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', title: 'OK?' } } } }));
    Promise.all(asks).then((all) => reply({ content: [{ type: 'text', text: all.map((r) => r.result.action).join(',') }] }));
  }`,
});

let redis: TestRedis;
let data: string;
let a: ReplicaProcess;
let b: ReplicaProcess;

beforeAll(async () => {
  if (!REDIS) return;
  redis = await startRedis();
  data = mkdtempSync(join(tmpdir(), 'elicitkit-web-budget-replicas-'));
  const env = {
    REDIS_URL: redis.url,
    ELICITKIT_DATA: data,
    ELICITKIT_SERVERS: JSON.stringify([
      { name: 'chatty-server', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
    ]),
  };
  [a, b] = await Promise.all([startReplica(env), startReplica(env)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([stopReplica(a), stopReplica(b)]);
  await redis?.stop();
  if (data) rmSync(data, { recursive: true, force: true });
});

/** A turn on `on` calling the chatty tool; every question shown is cancelled through `via`. */
async function sixAsked(on: Replica, via: Replica, browser: Browser) {
  const stream = await turn(on, browser, '/six');
  let shown = 0;
  for (;;) {
    let question: { id: string };
    try {
      question = await stream.question();
    } catch {
      break; // the stream ended: every question was answered or declined unseen
    }
    shown++;
    expect((await answer(via, browser, question.id, { action: 'cancel' })).status).toBe(200);
  }
  const chunks = await stream.end();
  return { shown, refused: chunks.filter((c) => c.type === 'data-refusal') };
}

describe.skipIf(!REDIS)("a chat's question budget across two instances", () => {
  it('turns streamed by different instances count into one budget: ten in all, not ten each', async () => {
    const browser = await openChat(a);
    const first = await sixAsked(a, b, browser);
    expect(first).toMatchObject({ shown: 6, refused: [] });
    const second = await sixAsked(b, a, browser);
    expect(second.shown, 'questions shown by the second instance in the same minute').toBe(4);
    expect(second.refused).toHaveLength(2);
    expect(second.refused[0]).toMatchObject({
      data: { server: 'chatty-server', reason: 'rate-limit', limit: { max: 10, perMs: 60_000 } },
    });
  }, 60_000);

  it('another chat has its own budget', async () => {
    const browser = await openChat(b);
    expect(await sixAsked(b, a, browser)).toMatchObject({ shown: 6, refused: [] });
  }, 60_000);
});
