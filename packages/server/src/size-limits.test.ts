/**
 * Size limits on what a client sends back, over HTTP with the real SDK seam: a `requestState`
 * past its limit, or a round's answers past theirs, are refused with a sentence naming the limit,
 * and nothing acts; a call whose answers would seal a state past the limit stops with a reason.
 */

import { MAX_ANSWER_LENGTH } from '@elicitkit/form';
import { afterAll, describe, expect, it } from 'vitest';
import { accept, ENVELOPE, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { loopback } from '../test/loopback.js';
import { answersFit, checkSealedSize, MAX_ANSWERS_LENGTH, MAX_REQUEST_STATE_LENGTH } from './size-limits.js';

const serving = await loopback();
afterAll(() => serving.close());
const call = { name: 'deploy', arguments: { service: 'orders' } };

describe('size limits', () => {
  it('a requestState past the limit is refused (-32602); nothing deploys', async () => {
    const first = pendingOf(await wireRound(serving.url, call));
    for (const requestState of [
      `v3.${'x'.repeat(MAX_REQUEST_STATE_LENGTH)}`,
      `${first.requestState}${' '.repeat(MAX_REQUEST_STATE_LENGTH)}`,
    ]) {
      const refused = await wireRound(serving.url, {
        ...call,
        requestState,
        inputResponses: { env: accept({ env: 'dev' }) },
      });
      // Refused before the tool runs, as every bad state sent to a kit tool (state-seam.ts).
      expect(refused.error).toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } });
    }
    // Just at the limit a state is looked at as usual (a forged one fails its MAC: -32602).
    const atLimit = `v3.${'x'.repeat(MAX_REQUEST_STATE_LENGTH - 3 - 23)}.${'A'.repeat(22)}`;
    expect(atLimit.length).toBe(MAX_REQUEST_STATE_LENGTH);
    const forged = await wireRound(serving.url, { ...call, requestState: atLimit });
    expect(forged.error?.code).toBe(-32602);
    expect(serving.store.deployments).toEqual([]);
  });

  it("a round's answers past the limit are refused, saying so; nothing deploys", async () => {
    const first = pendingOf(await wireRound(serving.url, call));
    const big = accept({ env: 'dev', note: 'x'.repeat(MAX_ANSWERS_LENGTH) });
    const refused = await wireRound(serving.url, {
      ...call,
      requestState: first.requestState,
      inputResponses: { env: big },
    });
    expect(refused.result?.isError).toBe(true);
    expect(JSON.stringify(refused.result?.content)).toContain(`over the limit of ${MAX_ANSWERS_LENGTH}`);
    expect(serving.store.deployments).toEqual([]);
    // The same round with an ordinary answer goes through.
    const done = await wireRound(serving.url, {
      ...call,
      requestState: first.requestState,
      inputResponses: { env: accept({ env: 'dev' }) },
    });
    expect(done.result?.structuredContent).toMatchObject({ status: 'done' });
  });

  // Was: a round was held to 65,536 characters in all, while a form took up to 100,000 a field: a
  // pasted log the form took was refused as the whole round's size. Now one answer is held to the
  // form's own cap (MAX_ANSWER_LENGTH), as every renderer checks it before sending: past it, the
  // answer is invalid like any other, said at its field; a round is held to what a state can hold.
  it("one answer past the form's cap is invalid, said at its field; one within it goes through", async () => {
    const tags = { name: 'tags', arguments: {} };
    const answered = async (note: string) => {
      const first = pendingOf(await wireRound(serving.url, tags));
      const inputResponses = { tags: accept({ tags: ['x'], note }) };
      expect(JSON.stringify(inputResponses).length).toBeLessThan(MAX_ANSWERS_LENGTH);
      return wireRound(serving.url, { ...tags, requestState: first.requestState, inputResponses });
    };
    const refused = await answered('x'.repeat(MAX_ANSWER_LENGTH));
    expect(refused.result?.structuredContent).toMatchObject({
      status: 'invalid',
      issues: [{ field: 'note', code: 'too_long' }],
    });
    expect(JSON.stringify(refused.result?.content)).toContain('"Note\\" is too long for one answer');
    const done = await answered('x'.repeat(60_000));
    expect(JSON.stringify(done.result?.content)).toContain('Tagged x');
  });

  it("a round of two answers, each within the form's cap, is taken whole", () => {
    const two = {
      a: accept({ note: 'x'.repeat(MAX_ANSWER_LENGTH - 20) }),
      b: accept({ note: 'y'.repeat(MAX_ANSWER_LENGTH - 20) }),
    };
    expect(JSON.stringify(two).length).toBeGreaterThan(2 * MAX_ANSWER_LENGTH - 100);
    expect(answersFit(two)).toBe(true);
  });

  // Was: the SDK copies the answers key by key, so one sent under "__proto__" became the copy's
  // prototype: found when the tool read its answer, not measured (JSON.stringify reads own keys).
  it.each([
    ['under "__proto__", holding the answer to another question', (big: string) => `{"__proto__":{"env":${big}}}`],
    [
      'to a question keyed "__proto__", beside a small one',
      (big: string) => `{"env":${JSON.stringify(accept({ env: 'dev' }))},"__proto__":${big}}`,
    ],
  ])('answers past the limit sent %s are refused for their size; nothing deploys', async (_label, shape) => {
    const deployed = serving.store.deployments.length;
    const first = pendingOf(await wireRound(serving.url, call));
    const big = JSON.stringify(accept({ env: 'dev', note: 'x'.repeat(MAX_ANSWERS_LENGTH) }));
    // As JSON.parse reads it from the wire: an own key named "__proto__".
    const inputResponses = JSON.parse(shape(big)) as Record<string, unknown>;
    expect(Object.keys(inputResponses)).toContain('__proto__');
    const refused = await wireRound(serving.url, { ...call, requestState: first.requestState, inputResponses });
    expect(refused.result?.isError).toBe(true);
    expect(JSON.stringify(refused.result?.content)).toContain(`over the limit of ${MAX_ANSWERS_LENGTH}`);
    expect(serving.store.deployments).toHaveLength(deployed);
  });

  // Was: the state's MAC ran first, and a state that did not verify (sealed under a secret since
  // rotated) hid the limit behind "Invalid or expired requestState".
  it("a round's answers past the limit are refused for their size before its state is checked at all", async () => {
    const rotated = await loopback({ kit: { secret: 'the new state secret, at least 32 characters long' } });
    try {
      const first = pendingOf(await wireRound(serving.url, call));
      for (const requestState of [first.requestState, `${first.requestState}x`]) {
        const refused = await wireRound(rotated.url, {
          ...call,
          requestState,
          inputResponses: { env: accept({ env: 'dev', note: 'x'.repeat(MAX_ANSWERS_LENGTH) }) },
        });
        expect(JSON.stringify(refused.result?.content ?? refused.error)).toContain(`limit of ${MAX_ANSWERS_LENGTH}`);
      }
      expect(rotated.store.deployments).toEqual([]);
    } finally {
      await rotated.close();
    }
  });

  it.each([
    [1_000, 'is not a field of this form'],
    [100_000, `limit of ${MAX_ANSWERS_LENGTH}`],
  ])(
    "a round's answers nested %i deep are refused, saying why (not a stack overflow); nothing deploys",
    async (depth, why) => {
      const deployed = serving.store.deployments.length;
      const first = pendingOf(await wireRound(serving.url, call));
      // Written out by hand: JSON.stringify itself would overflow on the deeper one.
      const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const params = JSON.stringify({
        ...call,
        _meta: ENVELOPE,
        requestState: first.requestState,
        inputResponses: { env: accept({ env: 'dev', x: 'DEEP' }) },
      }).replace('"DEEP"', deep);
      const response = await fetch(serving.url, {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-method': 'tools/call',
          'mcp-name': 'deploy',
          'mcp-protocol-version': '2026-07-28',
        },
        body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${params}}`,
      });
      const text = await response.text();
      expect(text).not.toContain('Maximum call stack');
      expect(text).toContain(why);
      expect(serving.store.deployments).toHaveLength(deployed);
    },
  );

  it('a state that would be sealed past the limit stops the call with the reason, not a state no round can use', () => {
    expect(() => checkSealedSize('x'.repeat(MAX_REQUEST_STATE_LENGTH))).not.toThrow();
    expect(() => checkSealedSize('x'.repeat(MAX_REQUEST_STATE_LENGTH + 1))).toThrow(/the call cannot continue/);
  });
});
