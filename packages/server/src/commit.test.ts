/**
 * At most once: a tool call's side effect, run through `ctx.commit`, acts once however often its
 * final round is replayed — in sequence, at the same moment, after a failure, while it still runs —
 * and every replay gets the same recorded result. Over real transports: raw 2026-07-28 HTTP
 * JSON-RPC on loopback (the bytes an attacker would resend), the SDK client's low-level request
 * over stdio, and duplicate 2025-11-25 answers on the wire.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { accept, pendingOf, type RoundParams, wireRound } from '../../../test/support/modern-wire.js';
import { type Loopback, loopback } from '../test/loopback.js';
import { createMemoryClaimStore } from './claims/memory.js';
import type { ClaimStore } from './claims/types.js';

let server: Loopback | undefined;
afterEach(async () => {
  server?.store.unstick?.();
  await server?.close();
  server = undefined;
});

async function start(options: Parameters<typeof loopback>[0] = {}) {
  server = await loopback(options);
  return server;
}

const deploy = (extra: Partial<RoundParams> = {}): RoundParams => ({
  name: 'deploy',
  arguments: { service: 'order-service' },
  ...extra,
});

/** Runs `deploy` up to its final round (the environment answered) without sending it. */
async function finalRound(url: string, tool = 'deploy'): Promise<RoundParams> {
  const first = pendingOf(await wireRound(url, { ...deploy(), name: tool }));
  expect(first.asks).toEqual(['env']);
  return {
    ...deploy(),
    name: tool,
    inputResponses: { env: accept({ env: 'staging' }) },
    requestState: first.requestState,
  };
}

/** The audit context id inside a state: `v4.[call, cid, exp, ...asks].<mac>` (call-state-codec.ts). */
const cidOf = (requestState: string): string =>
  JSON.parse(requestState.slice('v5.'.length, requestState.lastIndexOf('.')))[1];

describe('a final round replayed (2026-07-28, raw HTTP JSON-RPC on loopback)', () => {
  it('20 times in sequence, then 20 at once: one deployment, byte-identical responses', async () => {
    const s = await start();
    const final = await finalRound(s.url);
    const first = await wireRound(s.url, final);
    expect(first.result).toMatchObject({ structuredContent: { status: 'done' } });
    const sequential = [];
    for (let i = 0; i < 20; i++) sequential.push(await wireRound(s.url, final));
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => wireRound(s.url, final)));
    for (const replay of [...sequential, ...concurrent]) expect(replay.body).toBe(first.body);
    expect(s.store.deployments).toEqual([{ service: 'order-service', env: 'staging' }]);
    expect(s.store.attempts).toBe(1);
  });

  it('20 concurrent first sendings of the final round: one runs the effect, the others get its result', async () => {
    const s = await start();
    const final = await finalRound(s.url);
    const rounds = await Promise.all(Array.from({ length: 20 }, () => wireRound(s.url, final)));
    expect(new Set(rounds.map((r) => r.body)).size).toBe(1);
    expect(rounds[0]?.result).toMatchObject({ structuredContent: { status: 'done' } });
    expect(s.store.attempts).toBe(1);
    expect(s.store.deployments).toHaveLength(1);
  });

  it('a replay of an earlier round of a call that acted gets the recorded result, not its question again', async () => {
    const s = await start();
    const first = pendingOf(await wireRound(s.url, deploy()));
    const second = { ...deploy(), inputResponses: { env: accept({ env: 'prod' }) }, requestState: first.requestState };
    const confirm = pendingOf(await wireRound(s.url, second));
    expect(confirm.asks).toEqual(['prod']);
    const done = await wireRound(s.url, {
      ...deploy(),
      inputResponses: { prod: accept({ confirmed: true, ticket: 'REL-1001' }) },
      requestState: confirm.requestState,
    });
    expect(done.result).toMatchObject({ structuredContent: { status: 'done' } });
    // The environment round again, and the very first round's state with no answers at all.
    expect((await wireRound(s.url, second)).body).toBe(done.body);
    expect((await wireRound(s.url, { ...deploy(), requestState: first.requestState })).body).toBe(done.body);
    expect(s.store.deployments).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
  });

  it('a new call with the same arguments is a new call: it acts on its own', async () => {
    const s = await start();
    await wireRound(s.url, await finalRound(s.url));
    await wireRound(s.url, await finalRound(s.url));
    expect(s.store.deployments).toHaveLength(2);
  });

  it('an effect that failed did nothing and is released: the retry acts, once', async () => {
    const s = await start();
    const final = await finalRound(s.url, 'flaky_deploy');
    const failed = await wireRound(s.url, final);
    expect(failed.result).toMatchObject({ isError: true });
    expect(failed.body).toContain('briefly unreachable');
    const retried = await wireRound(s.url, final);
    expect(retried.result).toMatchObject({ structuredContent: { status: 'done' } });
    expect((await wireRound(s.url, final)).body).toBe(retried.body);
    expect(s.store.attempts).toBe(2);
    expect(s.store.deployments).toEqual([{ service: 'flaky', env: 'staging' }]);
  });

  it('a duplicate of an effect still running waits for it and gets its result', async () => {
    const s = await start();
    const final = await finalRound(s.url, 'stuck_deploy');
    const firstSent = wireRound(s.url, final);
    await expect.poll(() => s.store.attempts).toBe(1);
    const duplicate = wireRound(s.url, final);
    s.store.unstick?.();
    const [a, b] = await Promise.all([firstSent, duplicate]);
    expect(a.result).toMatchObject({ structuredContent: { status: 'done' } });
    expect(b.body).toBe(a.body);
    expect(s.store.attempts).toBe(1);
  });

  it('a duplicate that waits longer than commitWaitMs is told it is still running, and nothing runs twice', async () => {
    const s = await start({ kit: { commitWaitMs: 0 } });
    const final = await finalRound(s.url, 'stuck_deploy');
    const firstSent = wireRound(s.url, final);
    await expect.poll(() => s.store.attempts).toBe(1);
    const early = await wireRound(s.url, final);
    expect(early.result).toMatchObject({ structuredContent: { status: 'pending', outcome: 'running' } });
    s.store.unstick?.();
    const done = await firstSent;
    expect((await wireRound(s.url, final)).body).toBe(done.body);
    expect(s.store.attempts).toBe(1);
  });

  it('a claim whose holder died mid-effect is never run again: the outcome is reported unknown', async () => {
    let clock = Date.now();
    const now = () => clock;
    const claims = createMemoryClaimStore({ now });
    const s = await start({ kit: { claims, now, claimLeaseMs: 1_000 } });
    const final = await finalRound(s.url);
    // Another process claimed this call and stopped renewing: it crashed while acting.
    await claims.claim(cidOf(final.requestState ?? ''), 'crashed-process', { leaseMs: 1_000, ttlMs: 3_600_000 });
    clock += 5_000;
    const replay = await wireRound(s.url, final);
    expect(replay.result).toMatchObject({
      isError: true,
      structuredContent: { status: 'rejected', outcome: 'unknown' },
    });
    expect(JSON.stringify(replay.result)).toContain('may or may not have taken effect');
    expect(s.store.attempts).toBe(0);
  });

  // A lease is stamped with its holder's clock. Was: judged against this host's, so a replica whose
  // clock ran ahead by more than two thirds of a lease told a replay "unknown" while the holder acted.
  it("a live holder's lease judged on a replica whose clock is ahead by one and a half leases: still running, not unknown", async () => {
    // Both clocks stand still: the verdict is the leases' arithmetic alone, however long the rounds
    // take (on real clocks a replay slower than half a lease read a live holder as dead).
    const holderClock = Date.now();
    const claims = createMemoryClaimStore({ now: () => holderClock });
    const s = await start({ kit: { claims, now: () => holderClock + 1_500, claimLeaseMs: 1_000, commitWaitMs: 0 } });
    const final = await finalRound(s.url);
    // Claimed just now on the holder's clock, as a holder acting and renewing leaves it.
    await claims.claim(cidOf(final.requestState ?? ''), 'holder', { leaseMs: 1_000, ttlMs: 3_600_000 });
    const replay = await wireRound(s.url, final);
    expect(replay.result).toMatchObject({ structuredContent: { status: 'pending', outcome: 'running' } });
    expect(s.store.attempts).toBe(0);
  });

  it('a holder that stopped renewing is taken for dead after a lease without its lease moving, on a replica whose clock is far behind', async () => {
    const claims = createMemoryClaimStore({ now: Date.now });
    const s = await start({ kit: { claims, now: () => Date.now() - 10_000, claimLeaseMs: 500, commitWaitMs: 30_000 } });
    const final = await finalRound(s.url);
    // By this replica's clock its lease ends ten seconds on; it has not moved for a lease.
    await claims.claim(cidOf(final.requestState ?? ''), 'crashed-process', { leaseMs: 500, ttlMs: 3_600_000 });
    const replay = await wireRound(s.url, final);
    expect(replay.result).toMatchObject({ structuredContent: { status: 'rejected', outcome: 'unknown' } });
    expect(s.store.attempts).toBe(0);
  });

  it('an effect whose result could not be recorded is not run again: replays hear the outcome is unknown', async () => {
    let clock = Date.now();
    const now = () => clock;
    const memory = createMemoryClaimStore({ now });
    const claims: ClaimStore = {
      ...memory,
      complete: async () => {
        throw new Error('disk full');
      },
    };
    const s = await start({ kit: { claims, now, claimLeaseMs: 1_000 } });
    const final = await finalRound(s.url);
    // The effect happened, and the first caller is told so — and that it was not recorded: no
    // plain "done" that a replay of the same call could not find again.
    const first = (await wireRound(s.url, final)).result;
    expect(first).toMatchObject({ structuredContent: { status: 'done', outcome: 'unrecorded' } });
    expect(JSON.stringify(first)).toContain('could not be recorded');
    clock += 5_000;
    expect((await wireRound(s.url, final)).result).toMatchObject({
      structuredContent: { status: 'rejected', outcome: 'unknown' },
    });
    expect(s.store.attempts).toBe(1);
  });

  it('a store that lost the claim before the result came (complete answers false): the caller is told it was not recorded', async () => {
    const memory = createMemoryClaimStore();
    const claims: ClaimStore = { ...memory, complete: async () => false };
    const s = await start({ kit: { claims } });
    const final = await finalRound(s.url);
    const first = (await wireRound(s.url, final)).result as { structuredContent?: Record<string, unknown> };
    expect(first.structuredContent).toMatchObject({ status: 'done', outcome: 'unrecorded' });
    expect(String(first.structuredContent?.message)).toMatch(/^Deployed order-service .*could not be recorded/);
    expect(s.store.attempts).toBe(1);
    // The audit trail says so too, beside the call's last question.
    await expect
      .poll(() => s.log.events.filter((e) => e.type === 'violation').map((e) => [e.key, (e as { rule: string }).rule]))
      .toEqual([['env', 'UNRECORDED']]);
  });
});
