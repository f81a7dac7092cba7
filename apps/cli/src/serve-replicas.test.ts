/**
 * `elicitkit serve --http --redis` as two real replicas (child processes of the CLI, one data
 * directory, one Redis) behind a balancer with no stickiness, driven by real SDK clients and raw
 * 2026-07-28 rounds: opsdesk's production deploy on both revisions with each request on the
 * replica that did not take the previous one, the final round replayed across both at once, and
 * a replica killed with a question open. Then two more relaying on direct connections
 * (`--relay-listen`), and a relay port in use.
 */
import { spawnSync } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { serveHttp } from '@elicitkit/opsdesk';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { accept, pendingOf, type WireRound, wireRound } from '../../../test/support/modern-wire.js';
import { startRedis, type TestRedis, withRedis } from '../../../test/support/redis-server.js';
import { type Balancer, startProxy } from '../../../test/support/round-robin-proxy.js';
import {
  CLI,
  count,
  type HttpProcess,
  httpClient,
  nodeArgs,
  serveHttpProcess,
  tempDataDir,
} from '../../opsdesk/test/harness.js';

const REDIS = withRedis('cli/src/serve-replicas.test.ts');

const DEPLOY = { name: 'deploy_service', arguments: { service: 'order-service' } };
const PROD = { confirmed: true, ticket: 'REL-1001' };

describe.skipIf(!REDIS)('serve --http --redis: two replicas, no sticky sessions', () => {
  let redis: TestRedis;
  const data = tempDataDir();
  let a: HttpProcess;
  let b: HttpProcess;
  let token: string;
  const balancers: Balancer[] = [];
  const deployments = () => count(data.dir, 'deployments');
  const auth = () => ({ authorization: `Bearer ${token}` });
  const balance = async (pick?: Parameters<typeof startProxy>[1], urls = [a.url, b.url]) => {
    const balancer = await startProxy(urls, pick);
    balancers.push(balancer);
    return balancer;
  };

  beforeAll(async () => {
    redis = await startRedis();
    a = await serveHttpProcess(data.dir, ['--redis', redis.url]);
    b = await serveHttpProcess(data.dir, ['--redis', redis.url]);
    token = a.tokens.alice ?? '';
  }, 60_000);
  afterAll(async () => {
    for (const balancer of balancers) await balancer.close();
    for (const replica of [a, b]) if (replica && replica.child.signalCode === null) await replica.stop();
    await redis?.stop();
    data.remove();
  }, 30_000);

  it('2025-11-25: initialize on one replica, every later request (GET stream, call, answers) on the other', async () => {
    const before = deployments();
    const balancer = await balance((_req, n) => (n === 0 ? 0 : 1));
    const c = await httpClient(balancer.url, token, {
      revision: '2025-11-25',
      script: [
        { action: 'accept', content: { env: 'prod' } },
        { action: 'accept', content: PROD },
      ],
    });
    const { status, structured } = await callTool(c.client, 'deploy_service', { service: 'order-service' });
    await c.close();
    expect(status).toBe('done');
    expect(structured).toMatchObject({ deployment: { env: 'prod', ticket: 'REL-1001' } });
    expect(c.seen).toHaveLength(2);
    expect(deployments()).toBe(before + 1);
    expect(balancer.log[0]?.upstream).toBe(0);
    expect(balancer.log.slice(1).every((entry) => entry.upstream === 1)).toBe(true);
    expect(balancer.log.length).toBeGreaterThan(4);
  }, 60_000);

  it('2026-07-28: each round on the other replica, through the SDK client and round robin', async () => {
    const before = deployments();
    const balancer = await balance();
    const c = await httpClient(balancer.url, token, {
      revision: '2026-07-28',
      script: [
        { action: 'accept', content: { env: 'prod' } },
        { action: 'accept', content: PROD },
      ],
    });
    const { status } = await callTool(c.client, 'deploy_service', { service: 'order-service' });
    await c.close();
    expect(status).toBe('done');
    expect(deployments()).toBe(before + 1);
    const calls = balancer.log.filter((entry) => entry.method === 'POST');
    expect(new Set(calls.map((entry) => entry.upstream))).toEqual(new Set([0, 1]));
  }, 60_000);

  it('the final 2026 round replayed 12 times at once across both replicas: one deployment, one result', async () => {
    const before = deployments();
    const round1 = pendingOf(await wireRound(a.url, DEPLOY, { headers: auth() }));
    const round2 = pendingOf(
      await wireRound(
        b.url,
        { ...DEPLOY, inputResponses: { env: accept({ env: 'prod' }) }, requestState: round1.requestState },
        { headers: auth() },
      ),
    );
    expect(round2.asks).toEqual(['prod']);
    const final = { ...DEPLOY, inputResponses: { prod: accept(PROD) }, requestState: round2.requestState };
    const replays: WireRound[] = await Promise.all(
      Array.from({ length: 12 }, (_, i) => wireRound(i % 2 ? a.url : b.url, final, { id: i, headers: auth() })),
    );
    expect(deployments()).toBe(before + 1);
    const results = replays.map((r) => JSON.stringify(r.result?.structuredContent));
    expect(replays.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results).size).toBe(1);
    expect(JSON.parse(results[0] ?? '{}')).toMatchObject({ status: 'done', deployment: { env: 'prod' } });
  }, 60_000);

  it('Redis restarted without persistence after a deploy: the replayed final round deploys nothing more, on either replica', async () => {
    const before = deployments();
    const round1 = pendingOf(await wireRound(a.url, DEPLOY, { headers: auth() }));
    const round2 = pendingOf(
      await wireRound(
        a.url,
        { ...DEPLOY, inputResponses: { env: accept({ env: 'prod' }) }, requestState: round1.requestState },
        { headers: auth() },
      ),
    );
    const final = { ...DEPLOY, inputResponses: { prod: accept(PROD) }, requestState: round2.requestState };
    const first = await wireRound(b.url, final, { headers: auth() });
    expect(first.result?.structuredContent).toMatchObject({ status: 'done' });
    expect(deployments()).toBe(before + 1);
    // Every key Redis held is gone: claims kept there would be too, and the replay would act again.
    await redis.restart();
    for (const url of [a.url, b.url, a.url]) {
      const replay = await wireRound(url, final, { headers: auth() });
      expect(JSON.stringify(replay.result?.structuredContent)).toBe(JSON.stringify(first.result?.structuredContent));
    }
    expect(deployments()).toBe(before + 1);
    // The replicas reconnect to the new Redis on their own (a second apart at most); the tests
    // after this one open 2025 sessions, which need it: wait until each replica can open one.
    for (const url of [a.url, b.url])
      await expect
        .poll(
          async () => {
            try {
              const c = await httpClient(url, token, { revision: '2025-11-25' });
              await c.close();
              return 'open';
            } catch (error) {
              return String(error);
            }
          },
          { timeout: 15_000, interval: 200 },
        )
        .toBe('open');
  }, 60_000);

  it('a replica killed with questions open: its 2025 call ends in an error with nothing done, a late answer is refused, 2026 goes on', async () => {
    const before = deployments();
    // The 2025 session lives on a; every later request goes through b.
    const balancer = await balance((_req, n) => (n === 0 ? 0 : 1));
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const c = await httpClient(balancer.url, token, {
      revision: '2025-11-25',
      script: [
        () => {
          asked();
          return 'hang';
        },
      ],
    });
    const call = callTool(c.client, 'deploy_service', { service: 'order-service', env: 'prod' }).catch(
      (error: unknown) => error,
    );
    await wasAsked;
    // A 2026 call with its first round answered by a.
    const open2026 = pendingOf(
      await wireRound(a.url, { ...DEPLOY, arguments: { ...DEPLOY.arguments, env: 'prod' } }, { headers: auth() }),
    );

    // Both replicas beating on this Redis before a dies (the test before restarted it, which forgot
    // every beat): else b, finding neither a's beat nor its session's entry while the directory is
    // being written again after that restart, answers the late answer with a third 503 ("the
    // session directory (Redis) is being written again") — right then, and not this case.
    const watcher = new Redis(redis.url);
    await expect.poll(async () => (await watcher.keys('elicitkit:relay:alive:*')).length, { timeout: 15_000 }).toBe(2);
    watcher.disconnect();
    a.child.kill('SIGKILL');
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/did not complete/);
    expect(deployments()).toBe(before);
    // The survivor's operator is told, one line per relay it lost (the call's stream, the GET stream).
    await expect
      .poll(() => b.errors())
      .toMatch(
        /^opsdesk: a POST relayed to replica [\w-]+ failed part way: the server instance holding this session /m,
      );

    // The person answers late, through the survivor: a clear JSON-RPC error at once.
    const sessionId = (c.client.transport as { sessionId?: string } | undefined)?.sessionId ?? '';
    const late = await fetch(b.url, {
      method: 'POST',
      headers: {
        ...auth(),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, result: { action: 'accept', content: PROD } }),
    });
    // "Session not found" once a's heartbeat has lapsed; until then (up to 30 s after a kill),
    // 503 to send again: b cannot tell a killed holder from one cut from Redis for a moment.
    const refused = { status: late.status, retry: late.headers.get('retry-after'), body: await late.json() };
    expect(refused).toMatchObject(
      late.status === 404
        ? { body: { error: { message: 'Session not found' } } }
        : {
            status: 503,
            retry: '1',
            body: {
              error: {
                message:
                  'Service unavailable: the server instance holding this session is cut from Redis for a moment; send the request again',
              },
            },
          },
    );
    expect(deployments()).toBe(before);
    await c.close().catch(() => {});

    // The 2026 call continues on the survivor.
    const done = await wireRound(
      b.url,
      {
        ...DEPLOY,
        arguments: { ...DEPLOY.arguments, env: 'prod' },
        inputResponses: { prod: accept(PROD) },
        requestState: open2026.requestState,
      },
      { headers: auth() },
    );
    expect(done.result?.structuredContent).toMatchObject({ status: 'done' });
    expect(deployments()).toBe(before + 1);
  }, 60_000);

  it('says where it takes connections; once greeted, a 2025 deploy crosses without a PUBLISH; a killed holder ends the next question at once', async () => {
    // Two more replicas of their own, on a data directory of their own, relaying directly.
    const own = tempDataDir();
    const stats = new Redis(redis.url);
    const publishes = async () =>
      Number(/cmdstat_publish:calls=(\d+)/.exec(await stats.info('commandstats'))?.[1] ?? 0);
    const direct = ['--redis', redis.url, '--relay-listen', '127.0.0.1:0'];
    const c1 = await serveHttpProcess(own.dir, direct);
    const c2 = await serveHttpProcess(own.dir, direct);
    const deployed = () => count(own.dir, 'deployments');
    try {
      for (const replica of [c1, c2])
        expect(replica.output()).toMatch(/replicas share Redis, relaying directly on 127\.0\.0\.1:\d+\)/);
      const balancer = await balance((_req, n) => (n === 0 ? 0 : 1), [c1.url, c2.url]);
      let hang = false;
      let asked!: () => void;
      const wasAsked = new Promise<void>((resolve) => {
        asked = resolve;
      });
      const answers = [{ env: 'prod' }, PROD, { env: 'prod' }, PROD];
      const c = await httpClient(balancer.url, c1.tokens.alice ?? '', {
        revision: '2025-11-25',
        script: Array.from({ length: 5 }, () => () => {
          if (hang) {
            asked();
            return 'hang';
          }
          return { action: 'accept', content: answers.shift() ?? {} };
        }),
      });
      // Until b's connection to a has greeted, its relays go through Redis.
      await expect
        .poll(async () => {
          const before = await publishes();
          await c.client.listTools();
          return (await publishes()) - before;
        })
        .toBe(0);
      const before = deployed();
      const published = await publishes();
      const { status } = await callTool(c.client, 'deploy_service', { service: 'order-service' });
      expect(status).toBe('done');
      expect(deployed()).toBe(before + 1);
      expect(await publishes()).toBe(published);
      hang = true;
      const call = callTool(c.client, 'deploy_service', { service: 'order-service' }).catch((error: unknown) => error);
      await wasAsked;
      c1.child.kill('SIGKILL');
      const error = await call;
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/did not complete/);
      expect(deployed()).toBe(before + 1);
      await c.close().catch(() => {});
    } finally {
      for (const replica of [c1, c2]) if (replica.child.signalCode === null) await replica.stop();
      stats.disconnect();
      own.remove();
    }
  }, 60_000);

  it('a --relay-listen port in use: a clear error naming it, nothing left open, and the next start still shows the tokens', async () => {
    const fresh = tempDataDir();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const stats = new Redis(redis.url);
    // Redis's client ids only grow: a connection opened after `since` and still there is left open.
    const ids = async () => [...String(await stats.client('LIST')).matchAll(/^id=(\d+)/gm)].map((m) => Number(m[1]));
    const since = Math.max(...(await ids()));
    try {
      // In this process, as a host embedding opsdesk would start it: refused, its Redis connection closed.
      await expect(
        serveHttp({
          dataDir: fresh.dir,
          locale: 'en',
          port: 0,
          redis: redis.url,
          relayDirect: { host: '127.0.0.1', port },
          onError: () => {},
        }),
      ).rejects.toThrow(`the relay cannot listen on 127.0.0.1:${port} for the other replicas: EADDRINUSE`);
      expect((await ids()).filter((id) => id > since)).toEqual([]);
      // And from the command line: the message, exit 1, no token shown.
      const failed = spawnSync(
        process.execPath,
        nodeArgs(
          CLI,
          'serve',
          '--http',
          '0',
          '--data',
          fresh.dir,
          '--redis',
          redis.url,
          '--relay-listen',
          `127.0.0.1:${port}`,
        ),
        { encoding: 'utf8', timeout: 30_000 },
      );
      expect(failed.status).toBe(1);
      // The command line tries the address before it writes anything (8f63a76).
      expect(failed.stderr).toContain(
        `opsdesk cannot listen on 127.0.0.1:${port} (--relay-listen): EADDRINUSE (another process has it`,
      );
      expect(failed.stderr).toContain('nothing was written or reset');
      expect(failed.stdout).not.toMatch(/ek_/);
      const again = await serveHttpProcess(fresh.dir, ['--redis', redis.url, '--relay-listen', '127.0.0.1:0'], {
        tokens: true,
      });
      expect(Object.keys(again.tokens).sort()).toEqual(['alice', 'bob']);
      await again.stop();
    } finally {
      taken.close();
      stats.disconnect();
      fresh.remove();
    }
  }, 60_000);
});
