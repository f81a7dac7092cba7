/**
 * A request through Redis its holder has not answered keeps the requests after it in order with
 * it (`ends.ts`, `RelayCore.unanswered`): a cancel must not overtake its call on a direct
 * connection that came up meanwhile. Only the same session's requests need that order — a cancel,
 * an answer, a DELETE name their own session's requests. Held for every session on that holder, it
 * fed itself: each request sent behind another went through Redis and was waited on in its turn,
 * so with requests overlapping (many clients at once, or a slow head) a replica never took its
 * connection again after a single request through Redis (one sent before the connection greeted).
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { legacySession } from '../../../../test/support/sse.js';
import { loopback } from '../../test/loopback.js';
import { postOnSession, publishes, relayHarness } from '../../test/relay-harness.js';
import { createRedisRelay } from './redis-relay.js';

const REDIS = withRedis('relay/unanswered-sessions.test.ts');
const SECRET = 'relay-unanswered-sessions-secret-0123456789';

describe.skipIf(!REDIS)('a request through Redis not yet answered', () => {
  const { h, replica } = relayHarness(SECRET);

  it("keeps its own session's requests behind it, not another session's: those take the direct connection", async () => {
    const prefix = 'unanswered-sessions:';
    // Holder a runs relayed requests on session `held` only once released.
    let held = '';
    let reached = () => {};
    const arrived = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const redis = new Redis(h.server.url);
    const relay = createRedisRelay(redis, { secret: SECRET, prefix, livenessMs: 100, direct: {} });
    const serving = await loopback({ authenticated: true, sessions: relay });
    await relay.serve({
      fetch: async (request) => {
        if (request.headers.get('mcp-session-id') === held) {
          reached();
          await released;
        }
        return serving.handler.fetch(request);
      },
    });
    h.replicas.push({ relay, redis, serving });
    const b = await replica(prefix, { direct: {} });
    const one = await legacySession(serving.url, { authorization: 'Bearer alice' });
    const two = await legacySession(serving.url, { authorization: 'Bearer alice' });
    held = one.sessionId;
    // b's first request to a goes through Redis (its connection to a only starts), and waits there.
    const first = postOnSession(b.serving.url, one.sessionId, { jsonrpc: '2.0', id: 1, method: 'ping' });
    h.cleanups.push(async () => release());
    void first.catch(() => {});
    await arrived;
    // The other session's requests take the connection once it has greeted: no PUBLISH either way.
    let id = 1;
    await expect
      .poll(
        async () => {
          const before = await publishes(b.redis);
          const response = await postOnSession(b.serving.url, two.sessionId, {
            jsonrpc: '2.0',
            id: id++,
            method: 'ping',
          });
          await response.text();
          return (await publishes(b.redis)) - before;
        },
        { timeout: 5_000 },
      )
      .toBe(0);
    release();
    const answer = await first;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('"result"');
  });
});
