/**
 * Who a relayed call is done for. `createHttpHandler`'s `authenticate` gives an `AuthInfo`; the
 * kit's `identify(ctx)` names the person from it ("where one client id serves several people,
 * return the person"). Relayed from the other replica, the identity carried only the client id,
 * scopes and expiry — `extra` and `resource` dropped — so the same person's call, landing on the
 * other replica, was done and audited for nobody. They now travel, sealed, to a holder that says
 * it takes them; to one of an earlier version, a request whose identity holds them is refused,
 * saying why, never relayed without its person.
 */
import { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, loopback } from '../../test/loopback.js';
import { relayHarness } from '../../test/relay-harness.js';
import { createRedisRelay } from './redis-relay.js';

const REDIS = withRedis('relay/relayed-auth-extra.audit.test.ts');
const SECRET = 'relay-audit-auth-extra-0123456789abcdef012345';

describe.skipIf(!REDIS)('the identity a relayed call is done for', () => {
  const { h } = relayHarness(SECRET);

  /** One OAuth client (`shared-app`) for every person; the person is in `extra`, as the token says. */
  const replicaAt = async (prefix: string) => {
    const redis = new Redis(h.server.url);
    const relay = createRedisRelay(redis, { secret: SECRET, prefix, livenessMs: 100 });
    const serving = await loopback({
      sessions: relay,
      kit: { identify: (ctx) => (ctx.http?.authInfo?.extra as { person?: string } | undefined)?.person },
      authenticate: (request: Request) => {
        const token = /^Bearer (\w+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
        return token
          ? { token, clientId: 'shared-app', scopes: ['deploy'], extra: { person: token } }
          : new Response('who?', { status: 401 });
      },
    });
    await relay.serve(serving.handler);
    const r = { relay, redis, serving };
    h.replicas.push(r);
    return r;
  };

  it('control: the same call served on the holder itself is done for the person', async () => {
    const a = await replicaAt('rxc:');
    const client = new Client({ name: 'extra', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
    h.clients.push(client);
    await client.connect(httpTransport(a.serving.url, 'alice'));
    await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    const users = a.serving.log.events.map((e) => (e as { user?: string }).user);
    expect(users.length).toBeGreaterThan(0);
    expect(users).toEqual(users.map(() => 'alice'));
  });

  it('a call relayed to the holder is done for the person who made it', async () => {
    const a = await replicaAt('rx:');
    const b = await replicaAt('rx:');
    // initialize to a, every later request to b: the call is relayed.
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const client = new Client({ name: 'extra', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
    h.clients.push(client);
    await client.connect(httpTransport(h.proxy.url, 'alice'));
    const result = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect(result.isError ?? false).toBe(false);
    const users = a.serving.log.events.map((e) => (e as { user?: string }).user);
    expect(users.length).toBeGreaterThan(0);
    expect(users, 'the relayed call was audited for nobody: the person in AuthInfo.extra did not cross').toEqual(
      users.map(() => 'alice'),
    );
  });

  it('to a holder of an earlier version (no `whole` line): refused, saying why, not done for nobody', async () => {
    const a = await replicaAt('rxo:');
    const b = await replicaAt('rxo:');
    const client = new Client({ name: 'extra', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    h.clients.push(client);
    const transport = httpTransport(a.serving.url, 'alice');
    await client.connect(transport);
    const key = `rxo:session:${transport.sessionId}`;
    const entry = (await a.redis.get(key)) as string;
    expect(entry.split('\n').at(-1)).toBe('whole');
    await a.redis.set(key, entry.split('\n').slice(0, -1).join('\n'), 'PX', 30_000);
    const response = await fetch(b.serving.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer alice',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId as string,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(response.status).not.toBe(200);
    expect(await response.text()).toContain("would lose the identity's extra and resource");
    expect(a.serving.log.events).toEqual([]);
  });
});
