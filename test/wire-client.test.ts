/**
 * The burst's hand-written client (bench/support/wire-client.ts) against opsdesk over real HTTP:
 * a deploy goes through as with the SDK's client, and whatever is not the deploy's own result —
 * another outcome, an error, a refused session, a response to another id — is told apart.
 */
import { describe, expect, it } from 'vitest';
import { httpOpsdeskForSuite, peek } from '../apps/opsdesk/test/harness.js';
import { checkDeployResult } from '../bench/burst.js';
import {
  type Message,
  onCallStream,
  openWireSession,
  sseSplitter,
  WireClientError,
} from '../bench/support/wire-client.js';

const served = httpOpsdeskForSuite();
const tokenOf = (user: string) => served.server.newTokens.find((t) => t.username === user)?.token ?? '';
const deploy = { service: 'order-service' };

describe('the wire client against opsdesk over HTTP', () => {
  it('deploys: the environment question on the call’s stream, answered, the result checked', async () => {
    const session = await openWireSession(served.server.url, tokenOf('alice'));
    try {
      const questions: Message[] = [];
      const result = await session.callTool('deploy_service', deploy, async (params) => {
        questions.push(params);
        return { action: 'accept', content: { env: 'dev' } };
      });
      expect(questions).toHaveLength(1);
      expect(questions[0]?.requestedSchema).toMatchObject({ properties: { env: { type: 'string' } } });
      const ended = checkDeployResult(result);
      expect(ended.status).toBe('done');
      expect(peek(served.dataDir, 'SELECT env, deployed_by FROM deployments WHERE id = ?', ended.id)).toEqual([
        { env: 'dev', deployed_by: 'alice' },
      ]);
      expect(session.problems).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it('tells a declined deploy from a done one', async () => {
    const session = await openWireSession(served.server.url, tokenOf('alice'));
    try {
      const result = await session.callTool('deploy_service', deploy, async () => ({ action: 'decline' }));
      expect(result.structuredContent).toMatchObject({ status: 'declined' });
      expect(checkDeployResult(result)).toMatchObject({ status: 'wrong', why: expect.stringContaining('not done') });
    } finally {
      await session.close();
    }
  });

  it('tells a deploy of another environment from the one answered', async () => {
    const session = await openWireSession(served.server.url, tokenOf('alice'));
    try {
      const result = await session.callTool('deploy_service', deploy, async () => ({
        action: 'accept',
        content: { env: 'staging' },
      }));
      expect(checkDeployResult(result)).toMatchObject({ status: 'wrong', why: expect.stringContaining('another') });
    } finally {
      await session.close();
    }
  });

  it('fails a call the server answers with an error', async () => {
    const session = await openWireSession(served.server.url, tokenOf('alice'));
    try {
      const call = session.callTool('no_such_tool', {}, async () => ({ action: 'cancel' }));
      await expect(call).rejects.toThrow(WireClientError);
    } finally {
      await session.close();
    }
  });

  it('fails a session the server refuses', async () => {
    await expect(openWireSession(served.server.url, 'ek_not-a-token')).rejects.toThrow(/initialize answered 401/);
  });
});

describe('onCallStream', () => {
  it('takes a question and the call’s own response', () => {
    const params = { mode: 'form', message: 'Which?', requestedSchema: { type: 'object', properties: {} } };
    expect(onCallStream(1, { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params })).toEqual({
      kind: 'question',
      id: 0,
      params,
    });
    const response = { jsonrpc: '2.0', id: 1, result: { content: [] } };
    expect(onCallStream(1, response)).toEqual({ kind: 'response', message: response });
  });

  it('refuses a response to another id, an error, a notification, another request', () => {
    for (const m of [
      { jsonrpc: '2.0', id: 2, result: { content: [] } },
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } },
      { jsonrpc: '2.0', id: 1, result: null },
      { jsonrpc: '2.0', method: 'notifications/message', params: {} },
      { jsonrpc: '2.0', id: 3, method: 'roots/list' },
      { id: 1, result: { content: [] } },
    ])
      expect(() => onCallStream(1, m), JSON.stringify(m)).toThrow(WireClientError);
  });
});

describe('sseSplitter', () => {
  it('splits events across chunks, lines and UTF-8 characters; only message events', () => {
    const seen: Message[] = [];
    const split = sseSplitter((m) => seen.push(m));
    const body = Buffer.from(
      ': a comment\r\nid: 7\r\nevent: message\r\ndata: {"a":"é→"}\r\n\r\nevent: ping\ndata: {"b":1}\n\ndata: {"c":\ndata: 2}\n\n',
    );
    for (let i = 0; i < body.length; i += 3) split.push(body.subarray(i, i + 3));
    split.end();
    expect(seen).toEqual([{ a: 'é→' }, { c: 2 }]);
  });

  it('fails a body that ends inside an event', () => {
    const split = sseSplitter(() => {});
    split.push(Buffer.from('data: {"a":1}\n'));
    expect(() => split.end()).toThrow(WireClientError);
  });
});
