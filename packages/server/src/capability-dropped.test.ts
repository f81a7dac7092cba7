/**
 * 2026-07-28 over real HTTP on loopback: capabilities travel with each request, so the round that
 * carries the person's answer may come from a client announcing less than the one that was asked
 * (another client of the same caller, a reconfigured one). The answer was given to a question the
 * client could show: it stands. Was: "this client cannot ask the user, so register did nothing" —
 * a page the person had finished (the account made) reported as nothing done, and a form answer
 * dropped for the model to fill in itself.
 */
import { Client, isInputRequiredResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type Loopback, loopback } from '../test/loopback.js';

let served: Loopback | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await served?.close();
  served = undefined;
});

/** A 2026-07-28 SDK client answering by hand, as `identity`, declaring `capabilities`. */
async function manual(url: string, identity: string, capabilities: Record<string, unknown>) {
  const client = new Client(
    { name: 'manual', version: '1' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } }, inputRequired: { autoFulfill: false } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${identity}` } },
    }),
  );
  clients.push(client);
  return (args: Record<string, unknown>, extra: Record<string, unknown> = {}, name = 'register') =>
    client.request({ method: 'tools/call', params: { name, arguments: args, ...extra } }, { allowInputRequired: true });
}

describe('an answer carried by a round that declares less than the asking one', () => {
  it('a finished page, answered by a round without URL mode: the flow is reported completed', async () => {
    served = await loopback({ authenticated: true, kit: { urlWaitMs: 200, pollMs: 5 } });
    const withUrl = await manual(served.url, 'alice', { elicitation: { form: {}, url: {} } });
    const formOnly = await manual(served.url, 'alice', { elicitation: { form: {} } });
    const first = await withUrl({ flow: 'f1' });
    if (!isInputRequiredResult(first)) throw new Error(`expected input_required, got ${JSON.stringify(first)}`);
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['password']);
    // The person opened the page and finished there.
    served.store.completed.add('f1');
    const second = await formOnly(
      { flow: 'f1' },
      { inputResponses: { password: { action: 'accept' } }, requestState: first.requestState },
    );
    expect(second, 'the page flow finished, yet the call answered as if nothing had been done').toMatchObject({
      structuredContent: { status: 'done' },
    });
  });

  for (const [what, capabilities] of [
    ['URL mode only', { elicitation: { url: {} } }],
    ['no elicitation at all', {}],
  ] as const)
    it(`a form answer, carried by a round declaring ${what}: it is used, once`, async () => {
      served = await loopback({ authenticated: true });
      const withForm = await manual(served.url, 'alice', { elicitation: { form: {} } });
      const less = await manual(served.url, 'alice', capabilities);
      const args = { service: 'order-service' };
      const first = await withForm(args, {}, 'deploy');
      if (!isInputRequiredResult(first)) throw new Error(`expected input_required, got ${JSON.stringify(first)}`);
      const answered = await less(
        args,
        { inputResponses: { env: { action: 'accept', content: { env: 'dev' } } }, requestState: first.requestState },
        'deploy',
      );
      expect(answered).toMatchObject({ structuredContent: { status: 'done' } });
      expect(served.store.deployments).toEqual([{ service: 'order-service', env: 'dev' }]);
    });

  it('a question not answered yet, from a client that cannot show it: still unsupported, nothing done', async () => {
    served = await loopback({ authenticated: true });
    const none = await manual(served.url, 'alice', {});
    const result = await none({ service: 'order-service' }, {}, 'deploy');
    expect(result).toMatchObject({ structuredContent: { status: 'unsupported' } });
    expect(served.store.deployments).toEqual([]);
  });
});
