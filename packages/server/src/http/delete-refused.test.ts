/**
 * A DELETE the session's transport refuses (here: an unsupported Mcp-Protocol-Version header,
 * answered 400) leaves the session and the question open on it as they were: the client is told
 * its DELETE failed, so its call must not be cancelled nor its session closed behind its back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { legacySession, sseMessages } from '../../../../test/support/sse.js';
import { type Loopback, loopback } from '../../test/loopback.js';

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a DELETE its transport refuses', () => {
  it('leaves the session and its open question as they were', async () => {
    server = await loopback({ kit: { timeoutMs: 60_000 } });
    const { post, sessionId } = await legacySession(server.url);
    const call = await post({ id: 2, method: 'tools/call', params: { name: 'deploy', arguments: { service: 'a' } } });
    const events = sseMessages(call);
    const question = (await events.next()) as { id: number; method: string };
    expect(question.method).toBe('elicitation/create');
    const refused = await fetch(server.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '1999-01-01' },
    });
    expect(refused.status).toBe(400);
    expect(server.handler.sessionCount(), 'the refused DELETE closed the session anyway').toBe(1);
    const answer = await post({ id: question.id, result: { action: 'accept', content: { env: 'staging' } } });
    expect(answer.status, 'the answer to the still-open question found no session').toBe(202);
    expect(await events.next()).toMatchObject({ id: 2, result: { structuredContent: { status: 'done' } } });
    expect(server.store.deployments).toEqual([{ service: 'a', env: 'staging' }]);
  });
});
