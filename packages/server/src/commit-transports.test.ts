/**
 * At most once over the other transports: 2026-07-28 final rounds replayed over stdio with the SDK
 * client's low-level request, a process killed mid-effect and restarted on the same SQLite claims,
 * and 2025-11-25 answers sent again on the wire (HTTP on loopback, and a raw stdio pipe).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client, isInputRequiredResult } from '@modelcontextprotocol/client';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeArgs, quietStdio } from '../../../test/support/children.js';
import { legacySession, sseMessages } from '../../../test/support/sse.js';
import { type Loopback, loopback } from '../test/loopback.js';

const SERVER = fileURLToPath(new URL('../test/stdio-server.ts', import.meta.url));
const NODE_ARGS = nodeArgs(SERVER);
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A 2026-07-28 SDK client over stdio that sends each round by hand. */
async function modernOverStdio(env: Record<string, string> = {}) {
  const transport = quietStdio({
    command: process.execPath,
    args: NODE_ARGS,
    env: { ...(process.env as Record<string, string>), ...env },
  });
  const client = new Client(
    { name: 'replayer', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(transport, { timeout: 60_000 });
  cleanup.push(() => client.close().catch(() => {}));
  const round = (name: string, extra: Record<string, unknown> = {}) =>
    client.request(
      { method: 'tools/call', params: { name, arguments: { service: 'order-service' }, ...extra } },
      { allowInputRequired: true, timeout: 60_000 },
    );
  return { client, transport, round };
}

/** The final round's params, for `tool`, the environment answered. */
async function finalParams(round: (name: string, extra?: Record<string, unknown>) => Promise<unknown>, tool: string) {
  const first = await round(tool);
  if (!isInputRequiredResult(first)) throw new Error('expected the environment question');
  return {
    inputResponses: { env: { action: 'accept', content: { env: 'staging' } } },
    requestState: first.requestState,
  };
}

describe('a final round replayed over stdio (2026-07-28, SDK low-level requests)', () => {
  it('20 times in sequence and 20 at once: one deployment, the same result each time', async () => {
    const c = await modernOverStdio();
    const final = await finalParams(c.round, 'deploy');
    const results: unknown[] = [];
    for (let i = 0; i < 20; i++) results.push(await c.round('deploy', final));
    results.push(...(await Promise.all(Array.from({ length: 20 }, () => c.round('deploy', final)))));
    expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(results[0]).toMatchObject({ structuredContent: { status: 'done' } });
    // The server's own record of what it deployed, read through the server.
    const listed = (await c.client.callTool({ name: 'deployments', arguments: {} })) as {
      structuredContent: { deployments: unknown[] };
    };
    expect(listed.structuredContent.deployments).toEqual([{ service: 'order-service', env: 'staging' }]);
  });

  it('a process killed mid-effect: after a restart on the same claims, the replay does not act again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'elicitkit-crash-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const env = {
      ELICITKIT_CLAIMS_DB: join(dir, 'claims.db'),
      ELICITKIT_SECRET: 'a-shared-secret-of-at-least-32-bytes!!',
      ELICITKIT_CLAIM_LEASE_MS: '300',
    };
    const first = await modernOverStdio(env);
    const final = await finalParams(first.round, 'stuck_deploy');
    void first.round('stuck_deploy', final).catch(() => {});
    const running = () => {
      const db = new BetterSqlite3(env.ELICITKIT_CLAIMS_DB, { readonly: true, fileMustExist: true });
      try {
        return (db.prepare("SELECT COUNT(*) AS n FROM elicitkit_claims WHERE state = 'running'").get() as { n: number })
          .n;
      } finally {
        db.close();
      }
    };
    await expect.poll(running, { timeout: 20_000 }).toBe(1);
    process.kill(first.transport.pid ?? 0, 'SIGKILL'); // mid-effect: claimed, acting, nothing recorded

    const second = await modernOverStdio(env);
    const replay = await second.round('stuck_deploy', final);
    expect(replay).toMatchObject({ isError: true, structuredContent: { status: 'rejected', outcome: 'unknown' } });
    // Nothing ran in the new process: the claim is still the dead one's, and nothing was deployed.
    expect(running()).toBe(1);
    const listed = (await second.client.callTool({ name: 'deployments', arguments: {} })) as {
      structuredContent: { deployments: unknown[] };
    };
    expect(listed.structuredContent.deployments).toEqual([]);
  });
});

describe('the final answer sent again on a 2025-11-25 wire', () => {
  let server: Loopback | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('over HTTP: 20 duplicate answers in sequence and 20 at once — one deployment, one result', async () => {
    server = await loopback();
    const s = server;
    const { post } = await legacySession(s.url);
    const call = await post({
      id: 2,
      method: 'tools/call',
      params: { name: 'deploy', arguments: { service: 'order-service' } },
    });
    const events = sseMessages(call);
    const question = await events.next();
    expect(question).toMatchObject({ method: 'elicitation/create' });
    const answer = { id: (question as { id: number }).id, result: { action: 'accept', content: { env: 'staging' } } };
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await post(answer)).status);
    statuses.push(...(await Promise.all(Array.from({ length: 20 }, () => post(answer)))).map((r) => r.status));
    expect(await events.next()).toMatchObject({ id: 2, result: { structuredContent: { status: 'done' } } });
    expect(await events.next()).toBeUndefined(); // one result, and the stream ends
    expect(new Set(statuses)).toEqual(new Set([202]));
    expect(s.store.deployments).toEqual([{ service: 'order-service', env: 'staging' }]);
  });

  it('over a raw stdio pipe: 20 duplicate answers, then 20 at once — one deployment, one result', async () => {
    const child = spawn(process.execPath, NODE_ARGS, {
      stdio: ['pipe', 'pipe', 'pipe'],
    }) as ChildProcessWithoutNullStreams;
    cleanup.push(() => void child.kill('SIGKILL'));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const send = (message: Record<string, unknown>) =>
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const next = async (): Promise<Record<string, unknown>> => JSON.parse(String((await lines.next()).value));
    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    expect(await next()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'deploy', arguments: { service: 'order-service' } } });
    const question = await next();
    expect(question).toMatchObject({ method: 'elicitation/create' });
    const answer = { id: question.id, result: { action: 'accept', content: { env: 'staging' } } };
    for (let i = 0; i < 20; i++) send(answer);
    const result = await next();
    expect(result).toMatchObject({ id: 2, result: { structuredContent: { status: 'done' } } });
    for (let i = 0; i < 20; i++) send(answer);
    send({ id: 3, method: 'tools/call', params: { name: 'deployments', arguments: {} } });
    // Nothing else came back in between: the next message is the answer to the listing.
    expect(await next()).toMatchObject({
      id: 3,
      result: { structuredContent: { deployments: [{ service: 'order-service', env: 'staging' }] } },
    });
  });
});
