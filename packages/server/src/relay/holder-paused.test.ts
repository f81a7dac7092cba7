/**
 * A holder whose process is paused (SIGSTOP: a host suspended, a VM migrated, a debugger) longer
 * than its heartbeat lives: its requesters take it for cut off and tell their clients the calls
 * they relayed to it failed. When it runs again, what its clients sent meanwhile waits in its
 * sockets beside the requesters' `abort`s, in no order anyone chose — so before it takes anything
 * a client sent, a holder whose liveness may have lapsed drops what it ran for others: an answer
 * sent straight to it by a person told the call failed finds the call ended.
 *
 * The holder runs in a process of its own (`test/replica-process.ts`), so it can be stopped; its
 * Redis goes through a proxy that holds back what is published to it, so the requester's `abort`
 * surely comes after the answer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import { ANSWER_DEV, postOnSession, relayHarness } from '../../test/relay-harness.js';

const REDIS = withRedis('relay/holder-paused.test.ts');
const SECRET = 'relay-holder-paused-secret-0123456789abcdef';
const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * A TCP proxy to Redis that, once told to `hold` a pattern, holds back everything Redis sends on
 * a connection from the first chunk that has it (a message published to a channel) until
 * `release`; the other way, and other connections, go on.
 */
async function holdingProxy(port: number) {
  let pattern: Buffer | undefined;
  const held: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = tcpConnect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    const kill = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', kill).on('close', kill);
    upstream.on('error', kill).on('close', kill);
    client.pipe(upstream);
    let holding = false;
    upstream.on('data', (chunk: Buffer) => {
      if (!holding && pattern && chunk.includes(pattern)) holding = true;
      if (holding) held.push(() => client.write(chunk));
      else client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    hold: (what: string) => {
      pattern = Buffer.from(what);
    },
    release: () => {
      pattern = undefined;
      for (const write of held.splice(0)) write();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface State {
  deployments: unknown[];
  events: { type: string; key?: string; action?: string }[];
}

/** What the replica in `child` holds now. */
async function stateOf(child: ChildProcess): Promise<State> {
  const answer = once(child, 'message') as Promise<[State]>;
  child.send('state');
  return (await answer)[0];
}

describe.skipIf(!REDIS)('a holder paused longer than its heartbeat lives', () => {
  const { h, replica } = relayHarness(SECRET);

  it('drops the calls it ran for others before it takes an answer sent straight to it meanwhile', async () => {
    const prefix = 'paused:';
    const proxy = await holdingProxy(h.server.port);
    h.cleanups.push(() => proxy.close());
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@elicitkit/source', join(HERE, '../../test/replica-process.ts')],
      {
        env: {
          ...process.env,
          REDIS_URL: proxy.url,
          PREFIX: prefix,
          SECRET,
          RELAY_OPTIONS: JSON.stringify({ sessionTtlMs: 3_300, timeoutMs: 2_000 }),
        },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    h.cleanups.push(async () => {
      proxy.release();
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    });
    const [a] = (await once(child, 'message')) as [{ url: string; replica: string }];
    const b = await replica(prefix);
    h.proxy = await startProxy([a.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const { client, asked } = patientClient('paused');
    h.clients.push(client);
    const transport = httpTransport(h.proxy.url, 'alice');
    await client.connect(transport);
    const call = startDeploy(client);
    await asked;
    // What is published to the holder from now on waits (the requester's `abort` among it).
    proxy.hold(`${prefix}replica:${a.replica}`);
    child.kill('SIGSTOP');
    // Its heartbeat lapses: the requester ends the call with an error.
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    // Told it failed, the person answers anyway, straight to the holder, which runs again now.
    const answered = postOnSession(a.url, transport.sessionId as string, ANSWER_DEV);
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGCONT');
    await (await answered).arrayBuffer();
    const state = await stateOf(child);
    expect(state.deployments, 'deployed after the call was reported as not completed').toEqual([]);
    expect(state.events.find((e) => e.type === 'response' && e.key === 'env')).toMatchObject({ action: 'cancel' });
  });
});
