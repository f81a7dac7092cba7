/**
 * The sealed call state (`v5`): what it carries, that one MAC binds it to the key, the caller and
 * the server's name, that nothing else opens (a byte changed, cut short, another identity, another
 * server, another key, expired, relabelled as another version), that the states this codec keeps
 * for their next round never bypass any of that, that `v4` states (bound to no server) open as they
 * were, that `v3` and `v2` states sealed before them still open under the same key, marked as bound
 * by the arguments as the schema made them, and that a `v1` state (the SDK codec's format) never
 * opens.
 */
import { createHash, createHmac } from 'node:crypto';
import { createRequestStateCodec } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createCallStateCodec } from './call-state-codec.js';
import type { Caller, CallState } from './state.js';

const KEY = 'k'.repeat(32);
const ALICE: Caller = { method: 'tools/call', identity: 'alice' };
const BOB: Caller = { method: 'tools/call', identity: 'bob' };

function sample(): CallState {
  return {
    call: createHash('sha256').update('deploy').digest('base64url'),
    cid: '6f1c2a52-5d0e-4a43-9d0c-3c1f7d1b2e90',
    asks: {
      env: { asked: 1_000, timeoutMs: 600_000, answer: { action: 'accept', at: 2_000, content: { env: 'prod' } } },
      prod: {
        asked: 2_000,
        timeoutMs: 60_000,
        adaptation: { quirk: 'booleanAsChoice', fields: ['confirmed'] },
      },
      why: { asked: 3_000, timeoutMs: 1, answer: { action: 'decline', at: 3_001 } },
    },
  };
}

const codecAt = (clock: { now: number }, options: { key?: string } = {}) =>
  createCallStateCodec({ key: options.key ?? KEY, ttlSeconds: 60, now: () => clock.now, ...options });

/** Two codecs with one key: `sealer` keeps what it sealed, `other` (another replica) has to verify in full. */
function pair(clock = { now: 1_700_000_000_000 }) {
  return { clock, sealer: codecAt(clock), other: codecAt(clock) };
}

async function refusal(open: () => unknown): Promise<string> {
  try {
    await open();
  } catch (error) {
    return (error as Error).message;
  }
  return 'opened';
}

describe('the v5 call state', () => {
  it('carries the call, its context id and every question, and nothing about who sealed it', async () => {
    const { sealer, other } = pair();
    const text = (await sealer.seal(sample(), ALICE)) as string;
    expect(text).toMatch(/^v5\.\[.*\]\.[\w-]{22}$/);
    expect(await sealer.open(text, ALICE)).toEqual(sample());
    expect(await other.open(text, ALICE)).toEqual(sample());
    const body = text.slice('v5.'.length, text.lastIndexOf('.'));
    expect(body).not.toContain('alice');
    expect(JSON.parse(body)).toEqual([
      sample().call,
      sample().cid,
      1_700_000_060,
      ['env', 1_000, 600_000, [0, 2_000, { env: 'prod' }]],
      ['prod', 2_000, 60_000, 0, 'booleanAsChoice', ['confirmed']],
      ['why', 3_000, 1, [1, 3_001]],
    ]);
  });

  it('is less than half the size of the v1 state it replaces', async () => {
    const { sealer } = pair();
    const state = sample();
    const v1 = await createRequestStateCodec({ key: KEY, ttlSeconds: 60 }).mint({
      v: 1,
      call: createHash('sha256').update('deploy').digest('hex'),
      cid: state.cid,
      who: 'f'.repeat(64),
      asks: { env: { mode: 'form', asked: 1_000, timeoutMs: 600_000 } },
    });
    const v4 = (await sealer.seal({ ...state, asks: { env: { asked: 1_000, timeoutMs: 600_000 } } }, ALICE)) as string;
    expect(v4.length).toBeLessThan(v1.length / 2);
  });

  it('gives each open its own objects: a round changing them changes nothing sealed', async () => {
    const { sealer } = pair();
    const text = (await sealer.seal(sample(), ALICE)) as string;
    const first = await sealer.open(text, ALICE);
    (first.asks.prod as { answer?: unknown }).answer = { action: 'accept', at: 5, content: { confirmed: true } };
    first.asks.env?.adaptation?.fields.push('x');
    expect(await sealer.open(text, ALICE)).toEqual(sample());
  });

  it('gives each open its own objects where the state holds only numbers and strings too', async () => {
    // Such a state is read back from the array it was sealed from, not parsed: the same objects
    // a parse makes, new each time.
    const { sealer, other } = pair();
    const plain: CallState = {
      call: 'deploy\0{}',
      callText: 'deploy\0{}',
      cid: 'd',
      asks: {
        env: { asked: 1_000, timeoutMs: 600_000, question: 'q1' },
        why: { asked: 2_000, timeoutMs: 60_000, answer: { action: 'decline', at: 2_500 }, question: 'q2' },
      },
    };
    const text = (await sealer.seal(plain, ALICE)) as string;
    const first = await sealer.open(text, ALICE);
    expect(first).toEqual(plain);
    (first.asks.env as { answer?: unknown }).answer = { action: 'accept', at: 5, content: { env: 'prod' } };
    (first.asks.why as { asked: number }).asked = 0;
    delete first.asks.why?.answer;
    expect(await sealer.open(text, ALICE)).toEqual(plain);
    expect(await other.open(text, ALICE)).toEqual(plain);
    expect(await refusal(() => sealer.open(text, BOB))).toBe('mac');
  });

  it('refuses, kept or not, a state whose numbers JSON cannot carry', async () => {
    const { sealer, other } = pair();
    const text = (await sealer.seal(
      { call: 'c', cid: 'd', asks: { env: { asked: 1, timeoutMs: Infinity } } },
      ALICE,
    )) as string;
    for (const codec of [sealer, other]) expect(await refusal(() => codec.open(text, ALICE))).toBe('malformed');
  });

  it('carries any answer text exactly: quotes, backslashes, dots, control characters, emoji, a lone surrogate', async () => {
    const { sealer, other } = pair();
    const note = 'a "quoted" \\path\\ v1.2.3\n\t\u0000 ✓ 😀 \ud800 end';
    const state: CallState = {
      call: 'c',
      cid: 'd',
      asks: { note: { asked: 1, timeoutMs: 2, answer: { action: 'accept', at: 3, content: { note, list: [note] } } } },
    };
    const text = (await sealer.seal(state, ALICE)) as string;
    // Through a JSON message and back, as the client echoes it.
    const echoed = JSON.parse(JSON.stringify({ requestState: text })).requestState as string;
    expect(echoed).toBe(text);
    for (const codec of [sealer, other]) {
      const opened = await codec.open(echoed, ALICE);
      expect(opened.asks.note?.answer?.content).toEqual({ note, list: [note] });
    }
  });

  it('hands the call text back only to the process that sealed the state, and never sends it', async () => {
    const { sealer, other } = pair();
    const text = (await sealer.seal({ ...sample(), callText: 'deploy\0{"service":"order-service"}' }, ALICE)) as string;
    expect(text).not.toContain('order-service');
    expect((await sealer.open(text, ALICE)).callText).toBe('deploy\0{"service":"order-service"}');
    expect(await other.open(text, ALICE)).toEqual(sample());
  });

  it('carries a call bound by its text, and gives that text back wherever it is opened', async () => {
    const { sealer, other } = pair();
    const call = 'deploy\0{"service":"order-service"}';
    const text = (await sealer.seal({ ...sample(), call, callText: call }, ALICE)) as string;
    expect(JSON.parse(text.slice('v5.'.length, text.lastIndexOf('.')))[0]).toBe(call);
    // Another replica has the text too: it compares the call without hashing it.
    for (const codec of [sealer, other])
      expect(await codec.open(text, ALICE)).toEqual({ ...sample(), call, callText: call });
    // The text is under the MAC like the rest: another call's text in its place is a forged state.
    const swapped = text.replace('order-service', 'payment-service');
    for (const codec of [sealer, other]) expect(await refusal(() => codec.open(swapped, ALICE))).toBe('mac');
  });

  it('cannot be relabelled as an earlier version, nor an earlier one as a later', async () => {
    const { clock, sealer, other } = pair();
    const text = (await sealer.seal(sample(), ALICE)) as string;
    for (const earlier of ['v4.', 'v3.', 'v2.']) {
      const relabelled = `${earlier}${text.slice('v5.'.length)}`;
      for (const codec of [sealer, other]) expect(await refusal(() => codec.open(relabelled, ALICE))).toBe('mac');
    }
    const v2 = v2State(sample(), ALICE, clock);
    expect(await other.open(v2, ALICE)).toEqual({ ...sample(), boundAsParsed: true });
    for (const later of ['v3.', 'v4.', 'v5.'])
      expect(await refusal(() => other.open(`${later}${v2.slice('v2.'.length)}`, ALICE))).toBe('mac');
  });

  it('keeps a question keyed "__proto__" as its own key', async () => {
    const { sealer, other } = pair();
    const asks = Object.defineProperty({}, '__proto__', {
      value: { asked: 1, timeoutMs: 2 },
      enumerable: true,
    }) as CallState['asks'];
    const text = (await sealer.seal({ call: 'c', cid: 'd', asks }, ALICE)) as string;
    const opened = await other.open(text, ALICE);
    expect(Object.hasOwn(opened.asks, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(opened.asks)).toBe(Object.prototype);
  });

  it('refuses every single character changed, in the body or the tag, kept or not', async () => {
    const { sealer, other } = pair();
    const text = (await sealer.seal(sample(), ALICE)) as string;
    for (let at = 0; at < text.length; at++) {
      const changed = text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
      for (const codec of [sealer, other])
        expect(await refusal(() => codec.open(changed, ALICE))).toMatch(/mac|malformed/);
    }
  });

  it('refuses a state cut short or lengthened anywhere', async () => {
    const { sealer, other } = pair();
    const text = (await sealer.seal(sample(), ALICE)) as string;
    for (let length = 0; length < text.length; length++) {
      for (const codec of [sealer, other])
        expect(await refusal(() => codec.open(text.slice(0, length), ALICE))).toMatch(/mac|malformed/);
    }
    for (const codec of [sealer, other]) {
      expect(await refusal(() => codec.open(`${text}A`, ALICE))).toMatch(/mac|malformed/);
      expect(await refusal(() => codec.open(`x${text}`, ALICE))).toBe('malformed');
    }
  });

  it('refuses another identity or another method, whether or not the state is kept', async () => {
    const { sealer, other } = pair();
    const text = (await sealer.seal(sample(), ALICE)) as string;
    for (const codec of [sealer, other]) {
      expect(await refusal(() => codec.open(text, BOB))).toBe('mac');
      expect(await refusal(() => codec.open(text, { method: 'prompts/get', identity: 'alice' }))).toBe('mac');
      expect(await refusal(() => codec.open(text, { method: 'tools/call', identity: undefined }))).toBe('mac');
      // Refusing Bob leaves Alice's state good.
      expect(await codec.open(text, ALICE)).toEqual(sample());
    }
    // No identity at all is one caller too (stdio, or a kit without `identify`).
    const anonymous: Caller = { method: 'tools/call', identity: undefined };
    const unnamed = (await sealer.seal(sample(), anonymous)) as string;
    expect(await other.open(unnamed, anonymous)).toEqual(sample());
    expect(await refusal(() => other.open(unnamed, ALICE))).toBe('mac');
  });

  // An empty identity was taken as none ('' and undefined gave one MAC), and UTF-8 writes every
  // lone surrogate as U+FFFD: a state sealed for one of them opened for the others.
  it('keeps apart identities that one encoding would merge: none and empty, lone surrogates and U+FFFD', async () => {
    const callers: Caller[] = [undefined, '', '\uD800', '\uDC00', '\uFFFD', 'a\uD800', 'a\uFFFD', '\0', 'x'].map(
      (identity) => ({ method: 'tools/call', identity }),
    );
    const { sealer, other } = pair();
    for (const sealedFor of callers) {
      const text = (await sealer.seal(sample(), sealedFor)) as string;
      for (const codec of [sealer, other])
        for (const opener of callers) {
          if (opener === sealedFor) expect(await codec.open(text, opener)).toEqual(sample());
          else expect(await refusal(() => codec.open(text, opener)), JSON.stringify(opener.identity)).toBe('mac');
        }
    }
  });

  it('seals for none and for a plain identity as before: states sealed by the previous version still open', async () => {
    const clock = { now: 1_700_000_000_000 };
    for (const identity of [undefined, 'alice', 'ünïcode 名前']) {
      const caller: Caller = { method: 'tools/call', identity };
      const text = (await codecAt(clock).seal(sample(), caller)) as string;
      const dot = text.lastIndexOf('.');
      const before = createHmac('sha256', KEY)
        .update(`${text.slice(0, dot)}\0tools/call\0${identity ?? ''}`)
        .digest('base64url')
        .slice(0, 22);
      expect(text.slice(dot + 1)).toBe(before);
    }
  });

  it('refuses a state sealed with another key', async () => {
    const clock = { now: 1_700_000_000_000 };
    const text = (await codecAt(clock).seal(sample(), ALICE)) as string;
    expect(await refusal(() => codecAt(clock, { key: 'j'.repeat(32) }).open(text, ALICE))).toBe('mac');
  });

  it('expires after its lifetime, kept or not', async () => {
    const { clock, sealer, other } = pair();
    const text = (await sealer.seal(sample(), ALICE)) as string;
    clock.now += 59_000;
    expect(await other.open(text, ALICE)).toEqual(sample());
    clock.now += 2_000;
    for (const codec of [sealer, other]) expect(await refusal(() => codec.open(text, ALICE))).toBe('expired');
  });

  it('is dead from its expiry second on, not a second later, and counts from the round it was given', async () => {
    // Sealed half a second into a second: the expiry (whole seconds) is 59.5 s later, not 60.5 s.
    const { clock, sealer, other } = pair({ now: 1_700_000_000_500 });
    const text = (await sealer.seal(sample(), ALICE)) as string;
    clock.now += 59_500;
    expect(await other.open(text, ALICE)).toEqual(sample());
    clock.now += 1;
    for (const codec of [sealer, other]) expect(await refusal(() => codec.open(text, ALICE))).toBe('expired');
    // Sealed now for a round that began 10 s ago: it lives 60 s from then.
    const late = (await sealer.seal(sample(), ALICE, clock.now - 10_000)) as string;
    clock.now += 49_999;
    expect(await other.open(late, ALICE)).toEqual(sample());
    clock.now += 2;
    for (const codec of [sealer, other]) expect(await refusal(() => codec.open(late, ALICE))).toBe('expired');
  });

  it('opens in full the states it no longer keeps, and still refuses them changed', async () => {
    const { sealer } = pair();
    const texts: string[] = [];
    for (let n = 0; n < 1_100; n++) texts.push((await sealer.seal({ ...sample(), cid: `c${n}` }, ALICE)) as string);
    const oldest = texts[0] as string;
    expect((await sealer.open(oldest, ALICE)).cid).toBe('c0');
    expect(await refusal(() => sealer.open(oldest, BOB))).toBe('mac');
    const changed = `${oldest.slice(0, -1)}${oldest.endsWith('A') ? 'B' : 'A'}`;
    expect(await refusal(() => sealer.open(changed, ALICE))).toBe('mac');
  });

  it('opens the v3 states sealed before the call was bound by its arguments as sent, and those before node:crypto', async () => {
    // Texts sealed by the version that computed SHA-256 in JavaScript (same key, same clock).
    const clock = { now: 1_700_000_000_000 };
    const v3 =
      'v3.["deploy\\u0000{\\"env\\":\\"prod\\"}","c1",1700000060,["env",1000,600000,[0,2000,{"env":"prod","note":"é \\"q\\""}]],["prod",2000,60000,0,"booleanAsChoice",["confirmed"]]].Fj_DkVcEZkKhoXCeqemnmP';
    const state: CallState = {
      call: 'deploy\u0000{"env":"prod"}',
      callText: 'deploy\u0000{"env":"prod"}',
      cid: 'c1',
      asks: {
        env: {
          asked: 1000,
          timeoutMs: 600_000,
          answer: { action: 'accept', at: 2000, content: { env: 'prod', note: 'é "q"' } },
        },
        prod: { asked: 2000, timeoutMs: 60_000, adaptation: { quirk: 'booleanAsChoice', fields: ['confirmed'] } },
      },
    };
    // Opened as bound by the arguments the schema made (`execute.ts` compares it so).
    expect(await codecAt(clock).open(v3, ALICE)).toEqual({ ...state, boundAsParsed: true });
    expect(await refusal(() => codecAt(clock).open(v3, BOB))).toBe('mac');
    // Sealed again today: the same body under today's prefix and its own tag.
    const today = codecAt(clock).seal(state, ALICE);
    expect(today.slice(0, today.lastIndexOf('.'))).toBe(`v5.${v3.slice('v3.'.length, v3.lastIndexOf('.'))}`);
    expect(await codecAt(clock).open(today, ALICE)).toEqual(state);
  });
});

const OPS: Caller = { ...ALICE, server: 'opsdesk' };

describe('the server a state was sealed on', () => {
  it('opens only on a server of the same name, where it was kept and on another replica', async () => {
    const { sealer, other } = pair();
    const text = sealer.seal(sample(), OPS);
    for (const codec of [sealer, other]) {
      expect(codec.open(text, OPS)).toEqual(sample());
      for (const server of ['payments', 'opsdesk ', 'OPSDESK', '', undefined])
        expect(await refusal(() => codec.open(text, { ...ALICE, server }))).toBe('mac');
    }
    // Sealed on a server built by hand (no name): it opens on none other either.
    const unnamed = sealer.seal(sample(), ALICE);
    for (const codec of [sealer, other]) {
      expect(codec.open(unnamed, ALICE)).toEqual(sample());
      expect(await refusal(() => codec.open(unnamed, OPS))).toBe('mac');
      expect(await refusal(() => codec.open(unnamed, { ...ALICE, server: '' }))).toBe('mac');
    }
  });

  it('is bound apart from the identity: no name and identity run together into another pair', async () => {
    const { sealer, other } = pair();
    const pairs: Caller[] = [
      { method: 'tools/call', identity: 'alice', server: 'ops' },
      { method: 'tools/call', identity: '"ops"\0alice', server: undefined },
      { method: 'tools/call', identity: 'alice', server: 'ops"\0' },
      { method: 'tools/call', identity: '', server: 'ops' },
      { method: 'tools/call', identity: undefined, server: 'ops' },
      { method: 'tools/call', identity: 'ops', server: undefined },
      { method: 'tools/call', identity: undefined, server: '' },
    ];
    for (const sealedFor of pairs) {
      const text = sealer.seal(sample(), sealedFor);
      for (const openedAs of pairs) {
        if (openedAs === sealedFor) continue;
        for (const codec of [sealer, other]) expect(await refusal(() => codec.open(text, openedAs))).toBe('mac');
      }
    }
  });
});

/**
 * A `v4` state as the version before sealed it: today's body under `v4.`, the tag HMAC-SHA256 over
 * `v4.<body>`, the method and the identity — no server.
 */
function v4State(state: CallState, caller: Caller, clock: { now: number }): string {
  const today = codecAt(clock).seal(state, caller);
  const body = today.slice('v5.'.length, today.lastIndexOf('.'));
  const tag = createHmac('sha256', KEY)
    .update(`v4.${body}\0${caller.method}\0${caller.identity ?? ''}`)
    .digest('base64url')
    .slice(0, 22);
  return `v4.${body}.${tag}`;
}

describe('a v4 state, sealed before states were bound to their server', () => {
  it('opens as it was, on any server, for the caller it was sealed for only', async () => {
    const clock = { now: 1_700_000_000_000 };
    const { sealer, other } = pair(clock);
    const text = v4State(sample(), ALICE, clock);
    for (const codec of [sealer, other]) {
      expect(codec.open(text, ALICE)).toEqual(sample());
      expect(codec.open(text, OPS)).toEqual(sample());
      expect(await refusal(() => codec.open(text, BOB))).toBe('mac');
      expect(await refusal(() => codec.open(text, { ...BOB, server: 'opsdesk' }))).toBe('mac');
    }
    expect(await refusal(() => codecAt(clock, { key: 'j'.repeat(32) }).open(text, ALICE))).toBe('mac');
    // A state sealed today cannot be passed off as one of these, to shed its server.
    const today = sealer.seal(sample(), OPS);
    const relabelled = `v4.${today.slice('v5.'.length)}`;
    for (const codec of [sealer, other])
      for (const caller of [ALICE, OPS]) expect(await refusal(() => codec.open(relabelled, caller))).toBe('mac');
  });
});

/**
 * A `v2` state as the previous version sealed it (its tests fixed the format): the body as today's,
 * the call by its digest, the tag HMAC-SHA256 over `v2.<body>`, the method and the identity.
 */
function v2State(state: CallState, caller: Caller, clock: { now: number }, ttlSeconds = 60): string {
  const asks = Object.entries(state.asks).map(([key, r]) => {
    const ask: unknown[] = [key, r.asked, r.timeoutMs];
    if (r.answer || r.adaptation) {
      const a = r.answer;
      ask.push(a ? [['accept', 'decline', 'cancel'].indexOf(a.action), a.at, ...(a.content ? [a.content] : [])] : 0);
      if (r.adaptation) ask.push(r.adaptation.quirk, r.adaptation.fields);
    }
    return ask;
  });
  const body = JSON.stringify([state.call, state.cid, Math.floor(clock.now / 1000) + ttlSeconds, ...asks]);
  const tag = createHmac('sha256', KEY)
    .update(`v2.${body}\0${caller.method}\0${caller.identity ?? ''}`)
    .digest('base64url')
    .slice(0, 22);
  return `v2.${body}.${tag}`;
}

describe('a v2 state, sealed before v3 with the same key', () => {
  it('opens for the caller it was sealed for, its call still by digest', async () => {
    const clock = { now: 1_700_000_000_000 };
    const { sealer, other } = pair(clock);
    const text = v2State(sample(), ALICE, clock);
    for (const codec of [sealer, other])
      expect(await codec.open(text, ALICE)).toEqual({ ...sample(), boundAsParsed: true });
  });

  it('is refused under another identity or method, with another key, changed, or expired', async () => {
    const clock = { now: 1_700_000_000_000 };
    const text = v2State(sample(), ALICE, clock);
    expect(await refusal(() => codecAt(clock).open(text, BOB))).toBe('mac');
    expect(await refusal(() => codecAt(clock).open(text, { method: 'prompts/get', identity: 'alice' }))).toBe('mac');
    expect(await refusal(() => codecAt(clock, { key: 'j'.repeat(32) }).open(text, ALICE))).toBe('mac');
    for (let at = 3; at < text.length; at += 7) {
      const changed = text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
      expect(await refusal(() => codecAt(clock).open(changed, ALICE))).toMatch(/mac|malformed/);
    }
    clock.now += 61_000;
    expect(await refusal(() => codecAt(clock).open(text, ALICE))).toBe('expired');
  });
});

describe('a v1 state (the SDK codec’s format, the kit’s before v2), even sealed with the same key', () => {
  const who = (caller: Caller) =>
    createHash('sha256')
      .update(`elicitkit.who\0${caller.method}\0${caller.identity ?? ''}`)
      .digest('hex');

  // Nothing in that format says who sealed it: a hand-written tool with the SDK's codec under the
  // same key seals the same text, from what a client sent (state-from-another-tool.test.ts).
  it('is another tool’s, never opened as the kit’s', async () => {
    const clock = { now: Date.now() };
    const text = await createRequestStateCodec({ key: KEY, ttlSeconds: 60 }).mint({
      v: 1,
      call: createHash('sha256').update('deploy').digest('hex'),
      cid: sample().cid,
      who: who(ALICE),
      asks: { env: { asked: 1_000, timeoutMs: 600_000, answer: { action: 'accept', at: 2_000, content: {} } } },
    });
    expect(codecAt(clock).formatOf(text)).toBe('foreign');
    expect(await refusal(() => codecAt(clock).open(text, ALICE))).toBe('malformed');
  });
});
