/**
 * On 2026-07-28 capabilities and client info travel per request, so the round that carries the
 * person's answer may declare less than the round that asked. A decline or cancel given in time
 * stands whatever that round could show: it must never turn into `unsupported`, whose text hands
 * the model the missing arguments to fill in itself (the "cancel, then deploy with a value the
 * model picked" incident). Real SDK clients, the SDK's handler, in-process fetch.
 */
import { isInputRequiredResult } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { roundsClient } from '../test/rounds.js';
import { createElicitkit } from './kit.js';

async function manualClient(
  handler: ReturnType<typeof createMcpHandler>,
  capabilities: Record<string, unknown>,
  args: Record<string, unknown>,
  name = 'manual',
) {
  const { client, round } = await roundsClient(handler, { tool: 'deploy', capabilities, name });
  return { client, round: (extra: Record<string, unknown> = {}) => round(args, extra) };
}

describe('a refusal stands whatever the answering round declares', () => {
  it.each([
    ['a cancel, on a round that declares no elicitation capability', 'cancel', 'cancelled', {}, 'manual', 'env'],
    [
      'a decline, on a round from a text-only client (Cline) that could not show the form',
      'decline',
      'declined',
      { elicitation: { form: {} } },
      'Cline',
      'prod',
    ],
  ] as const)('%s: the call ends as refused', async (_case, action, status, capabilities, name, key) => {
    const store = createStore();
    const kit = createElicitkit({ identify: (ctx) => ctx.http?.authInfo?.clientId });
    const handler = createMcpHandler(() => kit.createServer({ name: 'fixture', version: '1' }, fixtureTools(store)));
    const args = key === 'prod' ? { service: 'order-service', env: 'prod' } : { service: 'order-service' };
    const asking = await manualClient(handler, { elicitation: { form: {} } }, args);
    const first = await asking.round();
    if (!isInputRequiredResult(first)) throw new Error('expected a question');
    expect(Object.keys(first.inputRequests ?? {})).toEqual([key]);
    // The person refused; the retry carrying it comes from a client (same identity) that declares less.
    const answering = await manualClient(handler, capabilities, args, name);
    const second = await answering.round({
      inputResponses: { [key]: { action } },
      requestState: first.requestState,
    });
    expect(second).toMatchObject({ structuredContent: { status } });
    expect(store.deployments).toEqual([]);
    await asking.client.close();
    await answering.client.close();
  });
});
