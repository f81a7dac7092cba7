/**
 * A question open on a call relayed on a direct connection, and Redis restarts (nothing
 * persisted). "A dropped Redis subscription ends the relays that came through it … not those on
 * direct connections" (docs), yet the restart wiped the holders' liveness keys and each end read
 * the missing key as "gone": the call was cut. A replica back from a break now reads a missing
 * heartbeat as not known yet, for a session's lifetime.
 */
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import { relayHarness, untilDirect } from '../../test/relay-harness.js';

const REDIS = withRedis('relay/redis-restart-direct.test.ts');
const SECRET = 'relay-audit-restart-direct-0123456789abcdef';

describe.skipIf(!REDIS)('Redis restarts under a call relayed on a direct connection', () => {
  const { h, pair } = relayHarness(SECRET);

  it('the call goes on, and the answer given after Redis is back deploys once', async () => {
    const errors: string[] = [];
    const { a, b, url } = await pair('rrd:', { direct: {}, onerror: (e) => errors.push(e.message) });
    let release!: () => void;
    const { client, asked } = patientClient('restart', {
      content: { env: 'dev' },
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    });
    h.clients.push(client);
    await client.connect(httpTransport(url, 'alice'));
    await untilDirect(client, a);
    const call = startDeploy(client);
    await asked;
    expect(b.relay.connections()).toBeGreaterThan(0);

    await h.server.restart();
    await expect.poll(() => a.redis.status === 'ready' && b.redis.status === 'ready', { timeout: 10_000 }).toBe(true);
    // Give each end's liveness watch a few rounds (livenessMs 100) once Redis is back.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    release();
    const result = await call;
    expect(
      result instanceof Error ? `${result.message} | relay: ${errors.join(' // ')}` : 'ok',
      'the call relayed on the direct connection was cut',
    ).toBe('ok');
    expect(a.serving.store.deployments.length).toBe(1);
  }, 40_000);
});
