/**
 * The identity a relayed request carries (who the requesting replica authenticated it as, never
 * the credential) is bounded by its size, not by how many scopes it has: an identity provider's
 * token commonly carries dozens, and a session works through every replica or none. Past the
 * bound, or past what a holder of an earlier version takes, the request is refused naming the
 * identity, not headers or the URL.
 */
import { Client } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { httpTransport, loopback } from '../../test/loopback.js';
import { postOnSession, relayHarness } from '../../test/relay-harness.js';
import { MAX_IDENTITY } from './frames.js';
import { createRedisRelay } from './redis-relay.js';

const REDIS = withRedis('relay/relayed-identity.test.ts');
const SECRET = 'relay-identity-test-secret-0123456789abcdef';

/** An OAuth-style identity with many scopes. */
const SCOPES = Array.from({ length: 80 }, (_, i) => `api://orders/scope.${i}`);

describe.skipIf(!REDIS)('the identity a relayed request carries', () => {
  const { h } = relayHarness(SECRET);

  /** A replica whose bearer token `name` authenticates as client `name` with `scopes`. */
  const replicaWith = async (prefix: string, scopes: (token: string) => string[] = () => SCOPES) => {
    const redis = new Redis(h.server.url);
    const relay = createRedisRelay(redis, { secret: SECRET, prefix, livenessMs: 100 });
    const serving = await loopback({
      sessions: relay,
      authenticate: (request: Request) => {
        const token = /^Bearer (\w+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
        return token ? { token, clientId: token, scopes: scopes(token) } : new Response('who?', { status: 401 });
      },
    });
    await relay.serve(serving.handler);
    h.replicas.push({ relay, redis, serving });
    return { redis, serving };
  };
  /** alice's session on `url`, and a `tools/list` on it through any replica. */
  const session = async (url: string) => {
    const client = new Client({ name: 'scoped', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    const sessionId = transport.sessionId as string;
    const list = async (through: string) => {
      const response = await postOnSession(through, sessionId, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      return { status: response.status, text: await response.text() };
    };
    return { sessionId, list };
  };

  it('a session of an identity with 80 scopes is served through the other replica as on its holder', async () => {
    const a = await replicaWith('scopes:');
    const b = await replicaWith('scopes:');
    const { list } = await session(a.serving.url);
    expect((await list(a.serving.url)).status).toBe(200);
    const relayed = await list(b.serving.url);
    expect(relayed.status, `relayed: ${relayed.text}`).toBe(200);
    expect(relayed.text).toContain('"deploy"');
  });

  it('up to the bound it crosses; past it, the refusal names the identity and its bound, not headers or the URL', async () => {
    // Client id and scopes together, each scope counted one more: exactly the bound, then one past it.
    const many = Array.from({ length: 1_023 }, (_, i) => `s${String(i).padStart(62, '0')}`);
    const at = [...many, 'x'.repeat(MAX_IDENTITY - 'alice'.length - 1_023 * 64 - 1)];
    const past = [...many, `${at.at(-1)}x`];
    const size = (scopes: string[]) => 'alice'.length + scopes.reduce((n, s) => n + s.length + 1, 0);
    expect([size(at), size(past)]).toEqual([MAX_IDENTITY, MAX_IDENTITY + 1]);
    let scopes = at;
    const a = await replicaWith('wide:', () => scopes);
    const b = await replicaWith('wide:', () => scopes);
    const { list } = await session(a.serving.url);
    expect((await list(b.serving.url)).status).toBe(200);
    scopes = past;
    expect((await list(a.serving.url)).status).toBe(200);
    const refused = await list(b.serving.url);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({
      error: {
        message:
          'Cannot relay: a relay request frame out of bounds: its identity (client id, scopes, extra and resource, at most 65,536 characters together)',
      },
    });
  });

  it('to a holder of an earlier version (no `identity` in its entry), at most 64 scopes cross; more are refused by name, not sent to be dropped', async () => {
    let scopes = SCOPES.slice(0, 64);
    const a = await replicaWith('earlier:', () => scopes);
    const b = await replicaWith('earlier:', () => scopes);
    const { sessionId, list } = await session(a.serving.url);
    // The entry as a replica of an earlier version writes it: five lines, no sixth.
    const key = `earlier:session:${sessionId}`;
    await a.redis.set(
      key,
      String(await a.redis.get(key))
        .split('\n')
        .slice(0, 4)
        .join('\n'),
      'PX',
      30_000,
    );
    expect((await list(b.serving.url)).status).toBe(200);
    scopes = SCOPES;
    const refused = await list(b.serving.url);
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(
      /its identity \(the server instance holding this session is of an earlier version, which takes at most 64 scopes/,
    );
  });
});
