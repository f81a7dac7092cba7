/**
 * The person answered, the tool's effect began on the holder, and then the way between the
 * replicas broke (the requester's Redis subscription blipped, or the direct connection was cut).
 * The requester told the client only "The request did not complete" (and docs/opsdesk.md said
 * "nothing runs"), while the effect went on to act on the holder — an effect is never cut
 * half-way. The person, told the deploy did not happen, would deploy again. Which of the two
 * happened is not known at the requester: the error now says so, and to check before calling
 * again; a call not yet at its effect is dropped at the holder as before.
 */
import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { httpTransport } from '../../test/loopback.js';
import { dropSubscription, freePort, relayHarness, tcpForwarder, untilDirect } from '../../test/relay-harness.js';

const REDIS = withRedis('relay/relay-cut-outcome-unknown.test.ts');
const SECRET = 'relay-audit-told-failed-0123456789abcdef0123';

describe.skipIf(!REDIS)('a relay lost while the effect runs', () => {
  const { h, pair } = relayHarness(SECRET);

  for (const route of ['redis', 'direct'] as const)
    it(`(${route}) a call cut while its effect ran: the client is told whether it took effect is not known`, async () => {
      const prefix = `tfa${route}:`;
      let fwd: Awaited<ReturnType<typeof tcpForwarder>> | undefined;
      let holderOptions = {};
      if (route === 'direct') {
        const port = await freePort();
        fwd = await tcpForwarder({ host: '127.0.0.1', port });
        h.cleanups.push(fwd.close);
        holderOptions = { direct: { port, advertise: fwd.address } };
      }
      const { a, b, url } = await pair(prefix, holderOptions, route === 'direct' ? { direct: {} } : {});
      const client = new Client({ name: 'tfa', version: '1' }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
      h.clients.push(client);
      await client.connect(httpTransport(url, 'alice'));
      if (route === 'direct') await untilDirect(client, a);
      const call = client
        .callTool({ name: 'stuck_deploy', arguments: {} }, { timeout: 30_000 })
        .then((r) => JSON.stringify(r))
        .catch((error: unknown) => String((error as Error).message));
      // The person answered; the effect has begun on the holder.
      await expect.poll(() => a.serving.store.attempts).toBe(1);
      if (route === 'redis') await dropSubscription(b, prefix);
      else fwd?.cut();
      const told = await call;
      a.serving.store.unstick?.();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const acted = a.serving.store.deployments.length;
      // The effect that had begun ran to its end, and the client was not told it did not.
      expect(acted, `deployments on the holder (client told: ${told})`).toBe(1);
      expect(told).toContain('did not complete');
      expect(told).toContain('Whether it took effect is not known');
      expect(told).toContain('Check before calling it again');
    });
});
