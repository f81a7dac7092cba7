/**
 * Every kind of bad `requestState` sent to a kit tool gets the same answer: JSON-RPC -32602, the
 * SDK's `invalid_request_state` (the 2026-07-28 spec: a server MUST reject state that fails
 * verification, and a protocol error SHOULD be a JSON-RPC error). Was: a tampered, expired or
 * another identity's state got -32602, while a text not in the kit's format, one past the size
 * limit, or a kit state issued for another tool or other arguments got an `isError` tool result
 * (thrown by the tool, and wrapped by the SDK). Nothing runs for any of them. Real SDK clients
 * over HTTP on loopback; a hand-written tool beside the kit's keeps its own states
 * (`mixed-tools.test.ts`).
 */
import {
  Client,
  isInputRequiredResult,
  ProtocolError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { type Loopback, loopback, onLoopback } from '../test/loopback.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit } from './kit.js';
import { MAX_REQUEST_STATE_LENGTH } from './size-limits.js';

let served: Loopback | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await served?.close();
  served = undefined;
});

let clock = Date.now();

/** A 2026-07-28 SDK client answering by hand, as `identity`. */
async function manual(url: string, identity: string) {
  const client = new Client(
    { name: 'manual', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${identity}` } },
    }),
  );
  clients.push(client);
  return (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    client.request({ method: 'tools/call', params: { name, arguments: args, ...extra } }, { allowInputRequired: true });
}

const ANSWER = { env: { action: 'accept', content: { env: 'dev' } } };

/** Alice's first round of deploy (the state her second round carries), and callers to send bad ones. */
async function started() {
  clock = Date.now();
  served = await loopback({ authenticated: true, kit: { now: () => clock } });
  const alice = await manual(served.url, 'alice');
  const bob = await manual(served.url, 'bob');
  const first = await alice('deploy', { service: 'order-service' });
  if (!isInputRequiredResult(first) || !first.requestState)
    throw new Error(`expected input_required, got ${JSON.stringify(first)}`);
  return { alice, bob, state: first.requestState, store: served.store };
}

async function refused(sent: Promise<unknown>) {
  const error = await sent.then(
    (result) => result,
    (e: unknown) => e,
  );
  expect(error, `answered ${JSON.stringify(error)}`).toBeInstanceOf(ProtocolError);
  expect(error).toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } });
}

describe('a bad requestState sent to a kit tool: -32602, nothing run', () => {
  const cases: [string, (s: Awaited<ReturnType<typeof started>>) => Promise<unknown>][] = [
    [
      'not the kit’s at all',
      ({ alice }) => alice('deploy', { service: 'order-service' }, { requestState: 'hello', inputResponses: ANSWER }),
    ],
    [
      'another server’s (the SDK codec’s format)',
      ({ alice }) =>
        alice('deploy', { service: 'order-service' }, { requestState: 'v1.eyJ4IjoxfQ.abc', inputResponses: ANSWER }),
    ],
    [
      'tampered',
      ({ alice, state }) =>
        alice(
          'deploy',
          { service: 'order-service' },
          { requestState: state.replace('order', 'ordeR'), inputResponses: ANSWER },
        ),
    ],
    [
      'expired',
      ({ alice, state }) => {
        clock += 3601 * 1000;
        return alice('deploy', { service: 'order-service' }, { requestState: state, inputResponses: ANSWER });
      },
    ],
    [
      'another tool’s',
      ({ alice, state }) => alice('note', { text: 'hello' }, { requestState: state, inputResponses: ANSWER }),
    ],
    [
      'another identity’s',
      ({ bob, state }) => bob('deploy', { service: 'order-service' }, { requestState: state, inputResponses: ANSWER }),
    ],
    [
      'another call’s arguments',
      ({ alice, state }) => alice('deploy', { service: 'billing' }, { requestState: state, inputResponses: ANSWER }),
    ],
    [
      'past the size limit, in the kit’s format',
      ({ alice, state }) =>
        alice(
          'deploy',
          { service: 'order-service' },
          { requestState: state + 'x'.repeat(MAX_REQUEST_STATE_LENGTH), inputResponses: ANSWER },
        ),
    ],
    [
      'past the size limit, any text',
      ({ alice }) =>
        alice(
          'deploy',
          { service: 'order-service' },
          { requestState: 'y'.repeat(MAX_REQUEST_STATE_LENGTH + 1), inputResponses: ANSWER },
        ),
    ],
  ];
  for (const [what, send] of cases)
    it(what, async () => {
      const s = await started();
      await refused(send(s));
      expect(s.store.deployments).toEqual([]);
    });

  it('on a server built by hand (serverOptions() and register) too', async () => {
    const store = createStore();
    const kit = createElicitkit();
    const handler = createHttpHandler(() => {
      const server = new McpServer({ name: 'by-hand', version: '1' }, kit.serverOptions());
      for (const tool of fixtureTools(store)) kit.register(server, tool);
      return server;
    });
    const open = await onLoopback(handler);
    try {
      const alice = await manual(open.url, 'alice');
      const first = await alice('deploy', { service: 'order-service' });
      if (!isInputRequiredResult(first)) throw new Error('expected input_required');
      await refused(alice('deploy', { service: 'order-service' }, { requestState: 'hello', inputResponses: ANSWER }));
      await refused(
        alice('deploy', { service: 'billing' }, { requestState: first.requestState, inputResponses: ANSWER }),
      );
      expect(store.deployments).toEqual([]);
    } finally {
      for (const c of clients.splice(0)) await c.close();
      await open.close();
    }
  });

  it('the state itself, on its own call, still works once', async () => {
    const { alice, state, store } = await started();
    const done = await alice('deploy', { service: 'order-service' }, { requestState: state, inputResponses: ANSWER });
    expect(done).toMatchObject({ structuredContent: { status: 'done' } });
    expect(store.deployments).toEqual([{ service: 'order-service', env: 'dev' }]);
  });
});
