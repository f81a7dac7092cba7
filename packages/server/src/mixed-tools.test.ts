/**
 * A server built by `kit.createServer` with a hand-written tool beside the kit's: the kit's
 * `requestState` check (the SDK runs one per server) applies to the kit's own states only. The
 * hand-written tool keeps its own 2026-07-28 `requestState` — in the SDK codec's format, or any
 * other — and checks it itself; the kit's tool still refuses any state it did not seal.
 */
import { createRequestStateCodec, inputRequired, type ServerContext } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { accept, pendingOf, type RoundParams, wireRound } from '../../../test/support/modern-wire.js';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { onLoopback } from '../test/loopback.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit } from './kit.js';

const kit = createElicitkit();
const own = createRequestStateCodec<{ step: number; name?: string }>({
  key: 'the hand-written tool keeps its own key, 32 bytes or more',
});
const NAME = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };

/** Asks for a name, keeping its step in a state of its own (the SDK codec's format), checked by itself. */
async function greet(_args: unknown, ctx: ServerContext) {
  const raw = ctx.mcpReq.requestState();
  if (raw === undefined) {
    return inputRequired({
      inputRequests: { name: inputRequired.elicit({ message: 'Who should be greeted?', requestedSchema: NAME }) },
      requestState: await own.mint({ step: 1 }),
    });
  }
  if (typeof raw !== 'string') throw new Error('the state was opened by someone else');
  const state = await own.verify(raw, ctx); // throws on a state it did not mint
  const name = (ctx.mcpReq.inputResponses?.name as { content?: { name?: string } } | undefined)?.content?.name;
  return { content: [{ type: 'text' as const, text: `Hello ${name} (step ${state.step + 1})` }] };
}

/** Keeps a plain-text state: no codec at all. */
async function count(_args: unknown, ctx: ServerContext) {
  const raw = ctx.mcpReq.requestState();
  if (raw === undefined) return inputRequired({ requestState: 'count:1' });
  return { content: [{ type: 'text' as const, text: `counted ${String(raw)}` }] };
}

const store = createStore();
const handler = createHttpHandler(() => {
  const server = kit.createServer({ name: 'mixed', version: '1' }, fixtureTools(store));
  server.registerTool('greet', { description: 'Greets someone.', inputSchema: z.object({}) }, greet);
  server.registerTool('count', { description: 'Counts.', inputSchema: z.object({}) }, count);
  return server;
});
const served = await onLoopback(handler);
afterAll(() => served.close());

const round = (params: RoundParams) => wireRound(served.url, params);

describe('a hand-written tool beside the kit’s, on one server', () => {
  it('keeps its own requestState in the SDK codec’s format, and checks it itself', async () => {
    const first = pendingOf(await round({ name: 'greet', arguments: {} }));
    const final = await round({
      name: 'greet',
      arguments: {},
      requestState: first.requestState,
      inputResponses: { name: accept({ name: 'Ada' }) },
    });
    expect(final.result?.content).toEqual([{ type: 'text', text: 'Hello Ada (step 2)' }]);
  });

  it('keeps a state in a format of its own', async () => {
    const first = pendingOf(await round({ name: 'count', arguments: {} }));
    const final = await round({ name: 'count', arguments: {}, requestState: first.requestState });
    expect(final.result?.content).toEqual([{ type: 'text', text: 'counted count:1' }]);
  });

  it('the kit’s tool still works, and refuses any state it did not seal: nothing runs', async () => {
    const first = pendingOf(await round({ name: 'deploy', arguments: { service: 'orders' } }));
    const done = await round({
      name: 'deploy',
      arguments: { service: 'orders' },
      requestState: first.requestState,
      inputResponses: { env: accept({ env: 'dev' }) },
    });
    expect(done.result?.structuredContent).toMatchObject({ status: 'done' });
    const theirs = pendingOf(await round({ name: 'greet', arguments: {} }));
    // Another tool's state sent to the kit's tool is refused at the SDK's seam (-32602), as a state
    // in the kit's own format that does not open is (state-seam.ts).
    for (const requestState of [theirs.requestState, 'count:1']) {
      const refused = await round({ name: 'deploy', arguments: { service: 'orders' }, requestState });
      expect(refused.error, `${requestState}: ${refused.body}`).toMatchObject({
        code: -32602,
        data: { reason: 'invalid_request_state' },
      });
    }
    const forged = await round({
      name: 'deploy',
      arguments: { service: 'orders' },
      requestState: 'v5.["forged"].AAAAAAAAAAAAAAAAAAAAAA',
      inputResponses: { env: accept({ env: 'prod' }) },
    });
    expect(forged.error?.code).toBe(-32602);
    expect(store.deployments).toHaveLength(1);
  });

  it('the hand-written tool refuses the kit’s state (its own check)', async () => {
    const ours = pendingOf(await round({ name: 'deploy', arguments: { service: 'orders' } }));
    const refused = await round({ name: 'greet', arguments: {}, requestState: ours.requestState });
    expect(refused.result?.isError ?? refused.error !== undefined).toBe(true);
  });
});
