/**
 * A person's decline or cancel is theirs whatever content the client sends with it: clients send
 * `content: null` (the SDK's own result schema reads it as none), and such an answer was taken for
 * a client that could not ask — `unsupported`, whose text tells the model to pass the values itself
 * and call again. Only an accept's content is read. Answers posted as raw JSON over real HTTP (the
 * SDK's client would strip the null before it left).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { httpTransport, type Loopback, loopback, patientClient, startDeploy } from '../test/loopback.js';

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

/** Posts `result` as the answer to the first question pushed on the session (request id 0). */
async function answer(serving: Loopback, sessionId: string, result: unknown): Promise<void> {
  const response = await fetch(serving.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, result }),
  });
  await response.arrayBuffer();
}

describe('the content sent with an answer', () => {
  it.each([
    ['cancel', null, 'cancelled'],
    ['decline', null, 'declined'],
    ['cancel', [], 'cancelled'],
    ['decline', 'no', 'declined'],
    ['cancel', { env: 'prod' }, 'cancelled'],
    ['accept', 'prod', 'unsupported'],
    ['accept', ['prod'], 'unsupported'],
  ])('%s with %j: %s, nothing deployed', async (action, content, status) => {
    const serving = await loopback();
    opened.push(serving);
    const { client, asked } = patientClient('raw');
    opened.push(client);
    const transport = httpTransport(serving.url);
    await client.connect(transport);
    const call = startDeploy(client);
    await asked;
    await answer(serving, transport.sessionId as string, { action, content });
    const result = (await call) as { structuredContent?: { status?: string } };
    expect(result.structuredContent?.status).toBe(status);
    expect(serving.store.deployments).toEqual([]);
  });
});
