import { createMCPClient, ElicitationRequestSchema } from '@ai-sdk/mcp';
import { describe, expect, it } from 'vitest';
import { count, httpOpsdeskForSuite, peek } from '../test/harness.js';

/** A real third-party client: the AI SDK's MCP client, with its own elicitation handler. */
describe('opsdesk with the AI SDK MCP client over HTTP', () => {
  const served = httpOpsdeskForSuite();

  it.each([
    ['with protocol discovery', true],
    ['with the legacy handshake', false],
  ])('completes deploy_service with elicitation (%s)', async (_label, discovery) => {
    const token = served.server.newTokens.find((t) => t.username === 'alice')?.token ?? '';
    const client = await createMCPClient({
      transport: { type: 'http', url: served.server.url, headers: { authorization: `Bearer ${token}` } },
      capabilities: { elicitation: {} },
      protocolVersionDiscovery: discovery,
      clientName: 'ai-sdk-test',
    });
    const asked: string[] = [];
    const answers = [{ env: 'prod' }, { confirmed: true, ticket: 'REL-2001' }];
    client.onElicitationRequest(ElicitationRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: answers.shift() };
    });
    const before = count(served.dataDir, 'deployments');
    const result = await client.callTool({ name: 'deploy_service', arguments: { service: 'payment-service' } });
    await client.close();
    expect(asked).toEqual([
      'Which environment should payment-service v1.8.0 be deployed to?',
      'Deploy payment-service to PRODUCTION: v1.8.0 again (already running v1.8.0)? Tick the confirmation and give the approved release ticket.',
    ]);
    expect(result.structuredContent).toMatchObject({
      status: 'done',
      deployment: { service: 'payment-service', env: 'prod', ticket: 'REL-2001' },
    });
    expect(count(served.dataDir, 'deployments')).toBe(before + 1);
    expect(peek(served.dataDir, 'SELECT deployed_by FROM deployments ORDER BY id DESC LIMIT 1')).toEqual([
      { deployed_by: 'alice' },
    ]);
  });
});
