/**
 * `maxInFlightPerIdentity` on 2025 sessions counts every request a POST starts: a JSON-RPC batch
 * counts whole (the SDK transport takes up to 100 in one POST), and a request id already in flight
 * on the session (or twice in one batch) is refused, since ids are the client's and a reused one
 * would escape the count and cross two requests' responses. Raw HTTP on loopback, the real SDK.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { legacySession, sseMessages } from '../../../../test/support/sse.js';
import { type Loopback, loopback } from '../../test/loopback.js';

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A 2025-11-25 session of `identity`'s, posting raw JSON-RPC (a message or a batch). */
async function rawSession(url: string, identity: string) {
  const { post } = await legacySession(url, { authorization: `Bearer ${identity}` });
  return (body: Record<string, unknown> | Record<string, unknown>[]) => post(body);
}

const deployCall = (id: number) => ({
  id,
  method: 'tools/call',
  params: { name: 'deploy', arguments: { service: 'order-service' } },
});

/** Reads an SSE response until an `elicitation/create` arrives on it: 1, or 0 if it ends first. */
async function untilAsked(response: Response): Promise<number> {
  const messages = sseMessages(response);
  for (let m = await messages.next(); m !== undefined; m = await messages.next())
    if (m.method === 'elicitation/create') return 1;
  return 0;
}

describe('the in-flight cap per identity on 2025 sessions', () => {
  it('refuses a request whose id is already in flight on the session, and still counts the cap', async () => {
    server = await loopback({ authenticated: true, maxInFlightPerIdentity: 2 });
    const post = await rawSession(server.url, 'mallory');
    const open: Response[] = [];
    const held = await post(deployCall(1));
    expect(held.status).toBe(200);
    expect(await untilAsked(held)).toBe(1);
    open.push(held);
    const reused = await post(deployCall(1));
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({
      id: 1,
      error: { code: -32600, message: expect.stringContaining('request id 1 is already in use') },
    });
    // A new id takes the second place; a third is past the cap.
    const second = await post(deployCall(2));
    expect(second.status).toBe(200);
    expect(await untilAsked(second)).toBe(1);
    open.push(second);
    const third = await post(deployCall(3));
    expect(third.status).toBe(429);
    await third.body?.cancel().catch(() => {});
    for (const r of open) await r.body?.cancel().catch(() => {});
  });

  it('counts a batch whole: past the cap it is refused, at the cap it runs', async () => {
    server = await loopback({ authenticated: true, maxInFlightPerIdentity: 2 });
    const post = await rawSession(server.url, 'mallory');
    // Three new calls in one POST, with nothing in flight and a cap of 2: it could never start, so
    // it is no 429 to retry (it would be refused again, for ever) but a request to send fewer.
    const over = await post([deployCall(11), deployCall(12), deployCall(13)]);
    expect(over.status).toBe(400);
    expect(over.headers.get('retry-after')).toBeNull();
    expect(await over.json()).toMatchObject({
      id: 11,
      error: { code: -32600, message: expect.stringContaining('a batch of 3 requests is more than the 2') },
    });
    const twice = await post([deployCall(14), deployCall(14)]);
    expect(twice.status).toBe(400);
    await twice.body?.cancel().catch(() => {});
    const atCap = await post([deployCall(15), deployCall(16)]);
    expect(atCap.status).toBe(200);
    expect(await untilAsked(atCap)).toBeGreaterThan(0);
    // With those in flight, a batch that fits the cap alone waits its turn: 429, to retry.
    const waits = await post([deployCall(17)]);
    expect(waits.status).toBe(429);
    expect(waits.headers.get('retry-after')).not.toBeNull();
    await waits.body?.cancel().catch(() => {});
    await atCap.body?.cancel().catch(() => {});
  });
});
