import { createHash, createHmac, randomUUID } from 'node:crypto';
import { Client, isInputRequiredResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, createRequestStateCodec } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { httpTransport, loopback } from '../test/loopback.js';
import { createMemoryClaimStore } from './claims/memory.js';
import type { ClaimStore } from './claims/types.js';
import { createElicitkit } from './kit.js';

/**
 * A 2026-07-28 client in manual mode: it sees each input_required result and retries by hand, so
 * the test can tamper with what it echoes.
 */
async function manualClient(identity: string, handler: ReturnType<typeof createMcpHandler>) {
  return manualOn(
    identity,
    new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
      fetch: (url, init) =>
        handler.fetch(new Request(url, init), { authInfo: { token: identity, clientId: identity, scopes: [] } }),
    }),
  );
}

/** The same client over `transport`. */
async function manualOn(identity: string, transport: StreamableHTTPClientTransport) {
  const client = new Client(
    { name: `manual-${identity}`, version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(transport);
  const round = (args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    client.request(
      { method: 'tools/call', params: { name: 'deploy', arguments: args, ...extra } },
      { allowInputRequired: true },
    );
  return { client, round };
}

/** The SDK's answer to a state its check refused: JSON-RPC -32602, `invalid_request_state`. */
const INVALID_STATE = { code: -32602, data: { reason: 'invalid_request_state' } };

/** What a round answered with an error gives: the error (a result is returned as it is, to fail the match). */
const refusal = (sent: Promise<unknown>) =>
  sent.then(
    (result) => result,
    (error: unknown) => error,
  );

function setup(secret?: string) {
  const store = createStore();
  const kit = createElicitkit({ identify: (ctx) => ctx.http?.authInfo?.clientId, ...(secret ? { secret } : {}) });
  const handler = createMcpHandler(() => kit.createServer({ name: 'fixture', version: '1' }, fixtureTools(store)));
  return { store, handler };
}

/**
 * A state from an earlier version, answered by its caller: the call goes on to the production
 * confirmation under a state sealed now (`v4`), and confirmed, deploys once.
 */
async function continuesToProd(
  alice: Awaited<ReturnType<typeof manualClient>>,
  answer: Record<string, unknown>,
  store: ReturnType<typeof createStore>,
) {
  const next = await alice.round({ service: 'order-service' }, answer);
  if (!isInputRequiredResult(next)) throw new Error('expected the production confirmation');
  expect(Object.keys(next.inputRequests ?? {})).toEqual(['prod']);
  expect(next.requestState).toMatch(/^v5\./);
  const last = await alice.round(
    { service: 'order-service' },
    {
      inputResponses: { prod: { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } } },
      requestState: next.requestState,
    },
  );
  expect(isInputRequiredResult(last)).toBe(false);
  expect(store.deployments).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
}

describe('requestState', () => {
  it('carries the first answer to the second round without server memory', async () => {
    const { store, handler } = setup();
    const alice = await manualClient('alice', handler);
    const first = await alice.round({ service: 'order-service' });
    expect(isInputRequiredResult(first)).toBe(true);
    if (!isInputRequiredResult(first)) return;
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['env']);
    // The state is signed, not encrypted: it reads as v4.<JSON>.<mac>.
    expect(first.requestState).toMatch(/^v5\.\[.*\]\.[\w-]{22}$/);
    const second = await alice.round(
      { service: 'order-service' },
      { inputResponses: { env: { action: 'accept', content: { env: 'prod' } } }, requestState: first.requestState },
    );
    if (!isInputRequiredResult(second)) throw new Error('expected the production confirmation');
    expect(Object.keys(second.inputRequests ?? {})).toEqual(['prod']);
    const third = await alice.round(
      { service: 'order-service' },
      {
        inputResponses: { prod: { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } } },
        requestState: second.requestState,
      },
    );
    expect(isInputRequiredResult(third)).toBe(false);
    expect(store.deployments).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
    await alice.client.close();
  });

  it('rejects a tampered requestState before the handler runs', async () => {
    const { store, handler } = setup();
    const alice = await manualClient('alice', handler);
    const first = await alice.round({ service: 'order-service' });
    if (!isInputRequiredResult(first) || !first.requestState) throw new Error('expected input_required');
    const dot = first.requestState.lastIndexOf('.');
    // v4.[call, cid, exp, [key, asked, timeoutMs, answer?]].<mac>: give env an accepted answer.
    const forged = JSON.parse(first.requestState.slice('v5.'.length, dot));
    forged[3][3] = [0, forged[3][1], { env: 'prod' }];
    const tampered = `v4.${JSON.stringify(forged)}${first.requestState.slice(dot)}`;
    await expect(
      alice.round({ service: 'order-service' }, { inputResponses: {}, requestState: tampered }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Invalid or expired requestState'),
    });
    // Text in no format of the kit's may be a hand-written tool's state, but sent to a kit tool it
    // is refused the same way (state-seam.ts).
    const foreign = await refusal(alice.round({ service: 'order-service' }, { requestState: 'not-even-close' }));
    expect(foreign).toMatchObject(INVALID_STATE);
    expect(store.deployments).toEqual([]);
    await alice.client.close();
  });

  it('refuses state replayed by another identity', async () => {
    const { store, handler } = setup();
    const alice = await manualClient('alice', handler);
    const mallory = await manualClient('mallory', handler);
    const first = await alice.round({ service: 'order-service' });
    if (!isInputRequiredResult(first)) throw new Error('expected input_required');
    await expect(
      mallory.round(
        { service: 'order-service' },
        { inputResponses: { env: { action: 'accept', content: { env: 'dev' } } }, requestState: first.requestState },
      ),
    ).rejects.toMatchObject({ code: -32602 });
    expect(store.deployments).toEqual([]);
    await alice.client.close();
    await mallory.client.close();
  });

  it('binds state to the authenticated client by default: a kit without identify behind authenticate', async () => {
    // loopback's kit has no `identify`; its handler authenticates `Bearer <name>` as client <name>.
    const served = await loopback({ authenticated: true });
    try {
      const alice = await manualOn('alice', httpTransport(served.url, 'alice'));
      const bob = await manualOn('bob', httpTransport(served.url, 'bob'));
      const first = await alice.round(SERVICE);
      if (!isInputRequiredResult(first)) throw new Error('expected input_required');
      const answered = { inputResponses: toProd, requestState: first.requestState };
      await expect(bob.round(SERVICE, answered)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Invalid or expired requestState'),
      });
      const next = await alice.round(SERVICE, answered);
      if (!isInputRequiredResult(next)) throw new Error('expected the production confirmation');
      const final = { inputResponses: confirmed, requestState: next.requestState };
      await expect(bob.round(SERVICE, final)).rejects.toMatchObject({ code: -32602 });
      expect(served.store.deployments).toEqual([]);
      expect(isInputRequiredResult(await alice.round(SERVICE, final))).toBe(false);
      expect(served.store.deployments).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
      await Promise.all([alice.client.close(), bob.client.close()]);
    } finally {
      await served.close();
    }
  });

  it('refuses state minted for one call on a call with other arguments', async () => {
    const { store, handler } = setup();
    const alice = await manualClient('alice', handler);
    const first = await alice.round({ service: 'order-service', env: 'prod' });
    if (!isInputRequiredResult(first)) throw new Error('expected input_required');
    const other = await refusal(
      alice.round(
        { service: 'payment-service', env: 'prod' },
        {
          inputResponses: { prod: { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } } },
          requestState: first.requestState,
        },
      ),
    );
    expect(other).toMatchObject(INVALID_STATE);
    expect(store.deployments).toEqual([]);
    await alice.client.close();
  });

  it('never opens a v1 state (the SDK codec’s format, the kit’s before 2026-12-01), for its identity either', async () => {
    // Nothing in that format says who sealed it: a hand-written tool keeping its state with the
    // SDK's codec under the same secret seals the same text (state-from-another-tool.test.ts).
    const secret = 'a kept state secret of at least 32 characters';
    const { store, handler } = setup(secret);
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    const v1 = await createRequestStateCodec({ key: secret, ttlSeconds: 3600 }).mint({
      v: 1,
      call: sha256('deploy\0{"service":"order-service"}'),
      cid: randomUUID(),
      who: sha256('elicitkit.who\0tools/call\0alice'),
      asks: { env: { mode: 'form', asked: Date.now(), timeoutMs: 600_000 } },
    });
    const answer = { inputResponses: { env: { action: 'accept', content: { env: 'prod' } } }, requestState: v1 };
    const alice = await manualClient('alice', handler);
    expect(await refusal(alice.round({ service: 'order-service' }, answer))).toMatchObject(INVALID_STATE);
    expect(store.deployments).toEqual([]);
    await alice.client.close();
  });

  it('refuses state minted for one call on a call with other arguments at another replica too', async () => {
    // The replica did not seal it, so it has the digest only, not the call's text.
    const secret = 'a shared state secret of at least 32 characters';
    const first = setup(secret);
    const second = setup(secret);
    const alice = await manualClient('alice', first.handler);
    const aliceThere = await manualClient('alice', second.handler);
    const round = await alice.round({ service: 'order-service', env: 'prod' });
    if (!isInputRequiredResult(round)) throw new Error('expected input_required');
    const answer = { prod: { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } } };
    const other = await refusal(
      aliceThere.round(
        { service: 'payment-service', env: 'prod' },
        { inputResponses: answer, requestState: round.requestState },
      ),
    );
    expect(other).toMatchObject(INVALID_STATE);
    const same = await aliceThere.round(
      { env: 'prod', service: 'order-service' },
      { inputResponses: answer, requestState: round.requestState },
    );
    expect(isInputRequiredResult(same)).toBe(false);
    expect(second.store.deployments).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
    await alice.client.close();
    await aliceThere.client.close();
  });

  it('binds a call with long arguments by their digest: another replica refuses other arguments, continues the same', async () => {
    // Past the text a v4 state carries as it is (execute.ts): the state carries a digest, which the
    // replica (without the text) checks by hashing the call it is given.
    const secret = 'a shared state secret of at least 32 characters';
    const first = setup(secret);
    const second = setup(secret);
    const alice = await manualClient('alice', first.handler);
    const aliceThere = await manualClient('alice', second.handler);
    const service = `order-service-${'x'.repeat(150)}`;
    const round = await alice.round({ service, env: 'prod' });
    if (!isInputRequiredResult(round) || !round.requestState) throw new Error('expected input_required');
    // Too long to travel as text: none of the argument is in the state, only its digest.
    expect(round.requestState).not.toContain('xxxxxxxx');
    const answer = { prod: { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } } };
    const other = await refusal(
      aliceThere.round(
        { service: `${service}y`, env: 'prod' },
        { inputResponses: answer, requestState: round.requestState },
      ),
    );
    expect(other).toMatchObject(INVALID_STATE);
    const same = await aliceThere.round(
      { env: 'prod', service },
      { inputResponses: answer, requestState: round.requestState },
    );
    expect(isInputRequiredResult(same)).toBe(false);
    expect(second.store.deployments).toEqual([{ service, env: 'prod', ticket: 'REL-1001' }]);
    await alice.client.close();
    await aliceThere.client.close();
  });

  it('continues a call from a v2 state sealed before this version with the same secret, for its caller and call only', async () => {
    // The previous version sealed v2 states: the call by its digest, the tag over `v2.<body>`.
    const secret = 'a kept state secret of at least 32 characters';
    const { store, handler } = setup(secret);
    const digest = createHash('sha256').update('deploy\0{"service":"order-service"}').digest('base64url');
    const body = JSON.stringify([
      digest,
      randomUUID(),
      Math.floor(Date.now() / 1000) + 3600,
      ['env', Date.now(), 600_000],
    ]);
    const tag = (identity: string) =>
      createHmac('sha256', secret).update(`v2.${body}\0tools/call\0${identity}`).digest('base64url').slice(0, 22);
    const v2 = `v2.${body}.${tag('alice')}`;
    const answer = { inputResponses: { env: { action: 'accept', content: { env: 'prod' } } }, requestState: v2 };
    const mallory = await manualClient('mallory', handler);
    await expect(mallory.round({ service: 'order-service' }, answer)).rejects.toMatchObject({ code: -32602 });
    const alice = await manualClient('alice', handler);
    expect(await alice.round({ service: 'payment-service' }, answer)).toMatchObject({
      isError: true,
      content: [{ text: 'requestState was issued for a different tool call' }],
    });
    await continuesToProd(alice, answer, store);
    await alice.client.close();
    await mallory.client.close();
  });

  it('refuses state minted for one tool on another tool with the same arguments', async () => {
    const { store, handler } = setup();
    const alice = await manualClient('alice', handler);
    const first = await alice.round({ service: 'order-service' });
    if (!isInputRequiredResult(first)) throw new Error('expected input_required');
    const other = await refusal(
      alice.client.request(
        {
          method: 'tools/call',
          params: {
            name: 'flaky_deploy',
            arguments: { service: 'order-service' },
            inputResponses: { env: { action: 'accept', content: { env: 'prod' } } },
            requestState: first.requestState,
          },
        },
        { allowInputRequired: true },
      ),
    );
    expect(other).toMatchObject(INVALID_STATE);
    expect(store.deployments).toEqual([]);
    await alice.client.close();
  });

  it('ignores answers to questions the server never asked', async () => {
    const { store, handler } = setup();
    const alice = await manualClient('alice', handler);
    const first = await alice.round({ service: 'order-service' });
    if (!isInputRequiredResult(first)) throw new Error('expected input_required');
    const next = await alice.round(
      { service: 'order-service' },
      {
        inputResponses: { prod: { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } } },
        requestState: first.requestState,
      },
    );
    // Still waiting for the environment: the unsolicited confirmation counts for nothing.
    expect(isInputRequiredResult(next) && Object.keys(next.inputRequests ?? {})).toEqual(['env']);
    expect(store.deployments).toEqual([]);
    await alice.client.close();
  });
});

/**
 * A kit on a clock the test moves (an hour's states), whose claim store can hold back what a
 * read found: a replica whose store answers slowly, so a commit lands between its read and its seal.
 */
function clocked() {
  const store = createStore();
  const clock = { now: START };
  const claims = createMemoryClaimStore({ now: () => clock.now });
  let hold: Promise<void> | undefined;
  let reached: () => void = () => undefined;
  const slow: ClaimStore = {
    claim: (...a) => claims.claim(...a),
    renew: (...a) => claims.renew(...a),
    complete: (...a) => claims.complete(...a),
    release: (...a) => claims.release(...a),
    sweep: () => claims.sweep(),
    async read(id) {
      const found = await claims.read(id);
      const held = hold;
      if (held) reached();
      await held;
      return found;
    },
  };
  const kit = createElicitkit({
    identify: (ctx) => ctx.http?.authInfo?.clientId,
    now: () => clock.now,
    claims: slow,
  });
  const handler = createMcpHandler(() => kit.createServer({ name: 'fixture', version: '1' }, fixtureTools(store)));
  return {
    store,
    clock,
    handler,
    /** Holds every read that finds the claim from now until `until` settles; resolves once one is held. */
    holdReads(until: Promise<void>): Promise<void> {
      hold = until;
      return new Promise<void>((resolve) => {
        reached = resolve;
      });
    },
    /** Reads answer as soon as they find the claim again. */
    releaseReads() {
      hold = undefined;
    },
  };
}

const HOUR = 3_600_000;
/** On a whole second: the states of the first rounds expire on one too. */
const START = 1_700_000_000_000;
const SERVICE = { service: 'order-service' };
const toProd = { env: { action: 'accept', content: { env: 'prod' } } };
const confirmed = { prod: { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } } };

describe('exactly once, to the end of every state of a committed call', () => {
  it('a final round replayed at the last moment its state opens answers from the record', async () => {
    const { store, clock, handler } = clocked();
    const alice = await manualClient('alice', handler);
    const first = await alice.round(SERVICE);
    if (!isInputRequiredResult(first)) throw new Error('expected input_required');
    const second = await alice.round(SERVICE, { inputResponses: toProd, requestState: first.requestState });
    if (!isInputRequiredResult(second)) throw new Error('expected the production confirmation');
    const final = { inputResponses: confirmed, requestState: second.requestState };
    clock.now += 500;
    const done = await alice.round(SERVICE, final);
    expect(store.deployments).toHaveLength(1);
    // Its state sealed on a whole second, the claim half a second later: around the state's last
    // millisecond, the record while it opens, a refusal after; never a second deploy.
    for (const at of [HOUR - 1, HOUR, HOUR + 1, HOUR + 499, HOUR + 600, HOUR + 999, HOUR + 1_000]) {
      clock.now = START + at;
      const replay = await alice.round(SERVICE, final).catch((error: Error) => error);
      if (replay instanceof Error) expect(replay.message).toContain('Invalid or expired requestState');
      else expect(replay).toEqual(done);
      expect(store.deployments).toHaveLength(1);
    }
    await alice.client.close();
  });

  it('a state sealed by a round that raced the commit dies before the commit is forgotten', async () => {
    const { store, clock, handler, holdReads, releaseReads } = clocked();
    const alice = await manualClient('alice', handler);
    const first = await alice.round(SERVICE);
    if (!isInputRequiredResult(first)) throw new Error('expected input_required');
    const second = await alice.round(SERVICE, { inputResponses: toProd, requestState: first.requestState });
    if (!isInputRequiredResult(second)) throw new Error('expected the production confirmation');
    // The second round again (a retry, or someone holding the first state): it reads the claim
    // (nothing yet), and its store answers late.
    let release!: () => void;
    const held = holdReads(new Promise<void>((resolve) => (release = resolve)));
    const racing = alice.round(SERVICE, { inputResponses: toProd, requestState: first.requestState });
    await held;
    releaseReads();
    // Meanwhile, 30 s later, the final round commits; two minutes after that (longer than the
    // claim's margin for clocks) the racing round seals.
    clock.now += 30_000;
    const done = await alice.round(SERVICE, { inputResponses: confirmed, requestState: second.requestState });
    expect(store.deployments).toHaveLength(1);
    clock.now += 120_000;
    release();
    const raced = await racing;
    if (!isInputRequiredResult(raced)) throw new Error('expected the production confirmation again');
    const replay = { inputResponses: confirmed, requestState: raced.requestState };
    // Its state, answered at any moment of its life or after, never deploys a second time.
    for (const at of [HOUR - 1, HOUR + 5_000, HOUR + 35_000, HOUR + 95_000, HOUR + 149_000, HOUR + 151_000]) {
      clock.now = START + at;
      const result = await alice.round(SERVICE, replay).catch((error: Error) => error);
      if (result instanceof Error) expect(result.message).toContain('Invalid or expired requestState');
      else expect(result).toEqual(done);
      expect(store.deployments).toHaveLength(1);
    }
    await alice.client.close();
  });
});
