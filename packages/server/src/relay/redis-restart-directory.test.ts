/**
 * Redis restarts (nothing persisted: the directory's entries are gone). Both replicas reconnect
 * and the holder's session is alive, yet a request for it reaching the other replica was answered
 * "Session not found" until the holder's next beat wrote its entry again (up to 10 s) — a live
 * session reported gone, the client told to start over. The holder now writes its entries again
 * as it subscribes again, and a replica back from a break answers a session it cannot find (or
 * whose holder is not beating yet) 503 to send again for a session's lifetime, never 404.
 */
import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { httpTransport, patientClient, startDeploy } from '../../test/loopback.js';
import { ANSWER_DEV, listeners, postOnSession, relayHarness } from '../../test/relay-harness.js';

const REDIS = withRedis('relay/redis-restart-directory.test.ts');
const SECRET = 'relay-audit-restart-secret-0123456789abcdef';

describe.skipIf(!REDIS)('Redis restarts under two replicas', () => {
  const { h, replica } = relayHarness(SECRET);

  it('a live session is never reported gone after Redis comes back', async () => {
    const prefix = 'rrst:';
    const a = await replica(prefix);
    const b = await replica(prefix);
    // The session opened on a, straight (b never looked it up, so it has nothing cached).
    const client = new Client({ name: 'restart', version: '1' });
    h.clients.push(client);
    const transport = httpTransport(a.serving.url, 'alice');
    await client.connect(transport);
    const sessionId = transport.sessionId as string;
    expect(await b.redis.exists(`${prefix}session:${sessionId}`)).toBe(1);

    await h.server.restart();
    // Both replicas back on Redis, the holder listening on its channel again.
    await expect.poll(() => a.redis.status === 'ready' && b.redis.status === 'ready', { timeout: 10_000 }).toBe(true);
    await expect.poll(() => listeners(b, prefix, a.relay.replica).catch(() => 0), { timeout: 10_000 }).toBe(1);
    // The session is alive on its holder.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);

    const res = await postOnSession(b.serving.url, sessionId, { jsonrpc: '2.0', id: 7, method: 'tools/list' });
    const body = await res.text();
    expect(res.status, `a live session was reported gone through the other replica: ${body}`).not.toBe(404);
  }, 30_000);

  it("the person's answer to a question open on the holder is not refused as 'Session not found'", async () => {
    const prefix = 'rrsq:';
    const a = await replica(prefix);
    const b = await replica(prefix);
    const { client, asked } = patientClient('restart-q');
    h.clients.push(client);
    const transport = httpTransport(a.serving.url, 'alice');
    await client.connect(transport);
    const sessionId = transport.sessionId as string;
    const call = startDeploy(client);
    await asked;

    await h.server.restart();
    await expect.poll(() => a.redis.status === 'ready' && b.redis.status === 'ready', { timeout: 10_000 }).toBe(true);
    await expect.poll(() => listeners(b, prefix, a.relay.replica).catch(() => 0), { timeout: 10_000 }).toBe(1);

    // The answer reaches the other replica (no sticky sessions).
    const res = await postOnSession(b.serving.url, sessionId, ANSWER_DEV);
    const body = await res.text();
    expect(res.status, `the answer was refused, its live session reported gone: ${body}`).not.toBe(404);
    await client.close();
    await call;
  }, 30_000);

  it('a session nobody holds, asked for after Redis came back: 503 to send again, never a guess of gone', async () => {
    const prefix = 'rrsu:';
    await replica(prefix);
    const b = await replica(prefix);
    await h.server.restart();
    await expect.poll(() => b.redis.status === 'ready', { timeout: 10_000 }).toBe(true);
    const res = await postOnSession(b.serving.url, 'no-such-session-0123456789', {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/list',
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.text()).toContain('being written again after a break');
  }, 30_000);
});
