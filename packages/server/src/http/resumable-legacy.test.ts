/**
 * Resumable 2025 streams (`eventStore`) on every 2025 revision. docs/server.md: with an event store
 * "a client whose stream drops — in the middle of a question too — reconnects with Last-Event-ID
 * and gets what it missed, then the rest … The call is not ended when its stream drops". A
 * 2025-06-18 client gets event ids on its streams too, though the SDK hands its calls no
 * `closeSSE`: the session marks its requests resumable, so its call waits for it as a
 * 2025-11-25 client's does. Real SDK clients behind a proxy that drops the stream.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type DroppingProxy, startDroppingProxy } from '../../../../test/support/dropping-proxy.js';
import { type Loopback, loopback } from '../../test/loopback.js';
import { createMemoryEventStore } from './event-store.js';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

describe('a resumable stream of a 2025-06-18 client dropped in the middle of a question', () => {
  for (const version of ['2025-11-25', '2025-06-18'] as const) {
    it(`${version}: the question is answered after the reconnection and the call ends done`, async () => {
      const server: Loopback = await loopback({
        authenticated: true,
        retryMs: 20,
        eventStore: createMemoryEventStore(),
        kit: { timeoutMs: 60_000 },
      });
      closing.push(() => server.close());
      // 2025-11-25's first event is the priming event; 2025-06-18 gets none, so its first is the question.
      const front: DroppingProxy = await startDroppingProxy([server.url], { events: 1 });
      closing.push(() => front.stop());
      const client = new Client(
        { name: 'resumer', version: '1' },
        {
          capabilities: { elicitation: version === '2025-06-18' ? {} : { form: {} } },
          ...(version === '2025-06-18' ? { supportedProtocolVersions: ['2025-06-18'] } : {}),
        },
      );
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
      await client.connect(
        new StreamableHTTPClientTransport(new URL(front.url), {
          requestInit: { headers: { authorization: 'Bearer alice' } },
          reconnectionOptions: {
            initialReconnectionDelay: 20,
            maxReconnectionDelay: 100,
            reconnectionDelayGrowFactor: 1,
            maxRetries: 5,
          },
        }),
      );
      closing.push(() => client.close());
      const result = await client
        .callTool({ name: 'deploy', arguments: { service: 'order-service' } }, { timeout: 10_000 })
        .catch((error: unknown) => error);
      expect(
        front.log.some((e) => e.dropped),
        'the proxy dropped the call stream',
      ).toBe(true);
      const ended = await server.log.response('env');
      expect(
        { action: ended.action, reason: (ended as { reason?: string }).reason },
        'the open question was ended by the dropped stream instead of waiting for the resumed client',
      ).toEqual({ action: 'accept', reason: undefined });
      expect((result as { structuredContent?: unknown }).structuredContent).toMatchObject({ status: 'done' });
      expect(server.store.deployments).toHaveLength(1);
    });
  }
});
