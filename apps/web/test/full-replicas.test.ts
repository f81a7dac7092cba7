/**
 * The whole stack replicated, with no stickiness anywhere: two `elicitkit serve --http --redis`
 * replicas (one data directory) behind balancer P1, two web replicas reaching opsdesk through P1
 * behind balancer P2, one real Redis shared by all four. Opsdesk's production deploy is driven
 * through the web routes on both revisions, each answer landing on the web replica not holding
 * the chat stream and each MCP request on whichever serve replica P1 picks. Nothing is mocked.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { startRedis, type TestRedis, withRedis } from '../../../test/support/redis-server.js';
import { type Balancer, startProxy } from '../../../test/support/round-robin-proxy.js';
import { count, type HttpProcess, serveHttpProcess, tempDataDir } from '../../opsdesk/test/harness.js';
import {
  answer,
  close,
  openChat,
  output,
  type Replica,
  type ReplicaProcess,
  startReplica,
  stopReplica,
  turn,
} from './http-browser';

const REDIS = withRedis('web/test/full-replicas.test.ts');

const DEPLOY = { name: 'deploy_service', arguments: { service: 'order-service' } };
const PROD = { confirmed: true, ticket: 'REL-1001' };

let redis: TestRedis;
const opsData = tempDataDir();
let webData: string;
let serveA: HttpProcess;
let serveB: HttpProcess;
let webA: ReplicaProcess;
let webB: ReplicaProcess;
let p1: Balancer;
let p2: Balancer;
let web: Replica;
let token: string;
/** Which web replica took each chat turn and each answer, in order. */
const routed: { kind: 'chat' | 'answer'; upstream: number }[] = [];
const deployments = () => count(opsData.dir, 'deployments');

/** Round robin, except that an answer goes to the web replica not holding the latest chat stream. */
function awayFromStream(req: IncomingMessage, n: number, upstreams: number): number {
  const path = req.url ?? '';
  const holder = routed.findLast((r) => r.kind === 'chat')?.upstream;
  if (req.method === 'POST' && path.startsWith('/api/elicitations/') && holder !== undefined) {
    const upstream = (holder + 1) % upstreams;
    routed.push({ kind: 'answer', upstream });
    return upstream;
  }
  const upstream = n % upstreams;
  if (req.method === 'POST' && path === '/api/chat') routed.push({ kind: 'chat', upstream });
  return upstream;
}

beforeAll(async () => {
  if (!REDIS) return;
  redis = await startRedis();
  serveA = await serveHttpProcess(opsData.dir, ['--redis', redis.url]);
  serveB = await serveHttpProcess(opsData.dir, ['--redis', redis.url]);
  token = serveA.tokens.alice ?? '';
  expect(token).toMatch(/^ek_/);
  p1 = await startProxy([serveA.url, serveB.url]);
  webData = mkdtempSync(join(tmpdir(), 'elicitkit-web-full-replicas-'));
  const headers = { authorization: `Bearer ${token}` };
  const env = {
    REDIS_URL: redis.url,
    ELICITKIT_DATA: webData,
    ELICITKIT_QUESTION_TIMEOUT_MS: '60000',
    ELICITKIT_SERVERS: JSON.stringify([
      { name: 'modern', url: p1.url, headers, revision: '2026-07-28' },
      { name: 'legacy', url: p1.url, headers, revision: '2025-11-25' },
    ]),
  };
  [webA, webB] = await Promise.all([startReplica(env), startReplica(env)]);
  p2 = await startProxy([webA.url, webB.url], awayFromStream);
  web = { url: new URL(p2.url).origin };
}, 120_000);

afterAll(async () => {
  await Promise.all([p2?.close(), p1?.close()]);
  await Promise.all([stopReplica(webA), stopReplica(webB)]);
  for (const replica of [serveA, serveB]) if (replica) await replica.stop();
  await redis?.stop();
  opsData.remove();
  if (webData) rmSync(webData, { recursive: true, force: true });
}, 30_000);

describe.skipIf(!REDIS)('two web replicas over two serve replicas, one Redis, no sticky sessions', () => {
  for (const revision of ['modern', 'legacy'] as const) {
    it(`deploys to production through the web routes (${revision === 'modern' ? '2026-07-28' : '2025-11-25'})`, async () => {
      const before = deployments();
      const servedBefore = p1.log.length;
      routed.length = 0;
      const browser = await openChat(web);
      const stream = await turn(web, browser, `/${revision}__deploy_service service=order-service`);
      const env = await stream.question();
      expect(env.prompt).toMatchObject({ mode: 'form' });
      expect((await answer(web, browser, env.id, { action: 'accept', content: { env: 'prod' } })).status).toBe(200);
      const prod = await stream.question();
      expect((await answer(web, browser, prod.id, { action: 'accept', content: PROD })).status).toBe(200);
      const chunks = await stream.end();
      expect(output(chunks)).toMatchObject({ output: { status: 'done', text: expect.stringContaining('prod') } });
      expect(deployments()).toBe(before + 1);

      // Every answer went to the web replica not holding the stream; both serve replicas took requests.
      const chat = routed.find((r) => r.kind === 'chat');
      const answers = routed.filter((r) => r.kind === 'answer');
      expect(answers).toHaveLength(2);
      expect(answers.every((r) => r.upstream !== chat?.upstream)).toBe(true);
      expect(new Set(p1.log.slice(servedBefore).map((entry) => entry.upstream))).toEqual(new Set([0, 1]));

      // A replay of the last answer, on either web replica, is refused and deploys nothing.
      expect((await answer(webA, browser, prod.id, { action: 'accept', content: PROD })).status).toBe(409);
      expect((await answer(webB, browser, prod.id, { action: 'accept', content: PROD })).status).toBe(409);
      expect(deployments()).toBe(before + 1);
      expect((await close(web, browser)).status).toBe(204);
    }, 60_000);
  }

  it('the final 2026 round replayed 12 times at once through P1: one deployment, one result', async () => {
    const before = deployments();
    const headers = { authorization: `Bearer ${token}` };
    const round1 = pendingOf(await wireRound(p1.url, DEPLOY, { headers }));
    const round2 = pendingOf(
      await wireRound(
        p1.url,
        { ...DEPLOY, inputResponses: { env: accept({ env: 'prod' }) }, requestState: round1.requestState },
        { headers },
      ),
    );
    expect(round2.asks).toEqual(['prod']);
    const final = { ...DEPLOY, inputResponses: { prod: accept(PROD) }, requestState: round2.requestState };
    const served = p1.log.length;
    const replays = await Promise.all(
      Array.from({ length: 12 }, (_, i) => wireRound(p1.url, final, { id: i, headers })),
    );
    expect(new Set(p1.log.slice(served).map((entry) => entry.upstream))).toEqual(new Set([0, 1]));
    expect(replays.every((r) => r.status === 200)).toBe(true);
    const results = new Set(replays.map((r) => JSON.stringify(r.result?.structuredContent)));
    expect(results.size).toBe(1);
    expect(JSON.parse([...results][0] ?? '{}')).toMatchObject({ status: 'done', deployment: { env: 'prod' } });
    expect(deployments()).toBe(before + 1);
  }, 60_000);
});
