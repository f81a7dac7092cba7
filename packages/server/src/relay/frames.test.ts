import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkFrame,
  FRAME_TTL_MS,
  type Frame,
  FrameRefused,
  frameKey,
  LATE_MS,
  MAX_BATCH,
  MAX_IDENTITY,
  open,
  seal,
  sealFrames,
  sealUnchecked,
} from './frames.js';

const keys = frameKey('frames-test-secret-0123456789abcdef0123456789');
const r = 'relay-1';
const head: Frame = { t: 'head', r, status: 202, headers: [['content-type', 'text/event-stream']] };
const data: Frame = { t: 'data', r, d: Buffer.from('event: message\ndata: {}\n\n').toString('base64') };
const end: Frame = { t: 'end', r };

/** A fresh envelope from `a` to `b`, for `sealUnchecked`. */
const envelope = (x = Date.now() + 10_000) => ({ from: 'a', to: 'b', n: randomBytes(16).toString('base64url'), x });
/** The length of a sealed message's encrypted part: that of the plain text it carries. */
const sealedLength = (message: string) => (JSON.parse(message.slice(44)) as { e: string }).e.length;

describe('relay frames', () => {
  it('several frames sealed as one message open as those frames, in order, from their sender', () => {
    const message = sealFrames(keys, 'a', 'b', [head, data, end]);
    expect(open(keys, 'b', message, new Map())).toEqual({ from: 'a', frames: [head, data, end] });
  });

  it('one frame is sealed as a frame alone, as every replica reads it', () => {
    const seen = new Map<string, number>();
    for (const message of [seal(keys, 'a', 'b', data), sealFrames(keys, 'a', 'b', [data])]) {
      expect(open(keys, 'b', message, seen)).toEqual({ from: 'a', frames: [data] });
      // The frame itself, not a list of one: a replica of an earlier version opens it.
      expect(sealedLength(message)).toBe(sealedLength(sealUnchecked(keys, envelope(), data)));
    }
  });

  it('a batched message is bound like any: replayed, altered, misdirected or expired, none of its frames is taken', () => {
    const now = Date.now();
    const message = sealFrames(keys, 'a', 'b', [head, data, end], now);
    const seen = new Map<string, number>();
    expect(open(keys, 'b', message, seen, now)).toMatchObject({ frames: [head, data, end] });
    expect(open(keys, 'b', message, seen, now)).toEqual({ dropped: 'replayed' });
    expect(open(keys, 'c', sealFrames(keys, 'a', 'b', [end], now), new Map(), now)).toEqual({
      dropped: 'misdirected',
    });
    // Expired, it is dropped, its frames told beside as late (`takeLate`), never as taken.
    const late = sealFrames(keys, 'a', 'b', [data, end], now);
    const kept = new Map<string, number>();
    expect(open(keys, 'b', late, kept, now + FRAME_TTL_MS + 1)).toEqual({
      dropped: 'expired',
      late: { from: 'a', frames: [data, end] },
    });
    // Not remembered: it is dropped as expired however often it comes.
    expect(kept.size).toBe(0);
    expect(open(keys, 'b', late, kept, now + FRAME_TTL_MS + 1)).toMatchObject({ dropped: 'expired' });
    // Altered, its signature fails first, as on time: nothing is told.
    const at = late.length - 3;
    const alteredLate = late.slice(0, at) + (late[at] === 'A' ? 'B' : 'A') + late.slice(at + 1);
    expect(open(keys, 'b', alteredLate, new Map(), now + FRAME_TTL_MS + 1)).toEqual({ dropped: 'signature' });
    // An expiry further out than any replica seals is refused before anything is opened.
    expect(open(keys, 'b', late, new Map(), now - 2 * FRAME_TTL_MS)).toEqual({ dropped: 'expired' });
    const other = sealFrames(keys, 'a', 'b', [head, data], now);
    for (const at of [5, 44 + 10, other.length - 3]) {
      const altered = other.slice(0, at) + (other[at] === 'A' ? 'B' : 'A') + other.slice(at + 1);
      expect(open(keys, 'b', altered, new Map(), now)).toHaveProperty('dropped');
    }
    expect(
      open(keys, 'b', sealFrames(frameKey('another-secret-0123456789abcdef'), 'a', 'b', [head, data]), new Map()),
    ).toEqual({ dropped: 'signature' });
  });

  it('a late message is told once, and only up to LATE_MS past its expiry; older, or a copy, is dropped unopened', () => {
    const now = Date.now();
    const told = new Map<string, number>();
    const message = sealFrames(keys, 'a', 'b', [data, end], now);
    const after = now + FRAME_TTL_MS + 1;
    expect(open(keys, 'b', message, new Map(), after, told)).toEqual({
      dropped: 'expired',
      late: { from: 'a', frames: [data, end] },
    });
    expect(told.size).toBe(1);
    // The same message again (a replay of a captured one): nothing told, nothing opened.
    expect(open(keys, 'b', message, new Map(), after + 1, told)).toEqual({ dropped: 'expired' });
    // Another message, past LATE_MS after its expiry: dropped as if it were junk.
    const old = sealFrames(keys, 'a', 'b', [end], now);
    expect(open(keys, 'b', old, new Map(), now + FRAME_TTL_MS + LATE_MS + 1, told)).toEqual({ dropped: 'expired' });
    expect(told.size).toBe(1);
    // Just within it, told; and the told nonces past their window are swept as others come.
    expect(open(keys, 'b', old, new Map(), now + FRAME_TTL_MS + LATE_MS - 1, told)).toMatchObject({
      late: { frames: [end] },
    });
    const later = sealFrames(keys, 'a', 'b', [end], now + 2 * LATE_MS);
    expect(open(keys, 'b', later, new Map(), now + 2 * LATE_MS + FRAME_TTL_MS + 1, told)).toHaveProperty('late');
    expect(told.size).toBe(1);
    // Bounded whatever the traffic.
    for (let i = 0; i < 10_050; i++) open(keys, 'b', sealFrames(keys, 'a', 'b', [end], now), new Map(), after, told);
    expect(told.size).toBe(10_000);
  });

  it('a list with one bad frame, an empty list or a list longer than MAX_BATCH is dropped whole', () => {
    const bad = [
      [head, { t: 'data', r, d: '!!' }, end],
      [],
      Array.from({ length: MAX_BATCH + 1 }, () => end),
      [[head]],
    ];
    for (const f of bad)
      expect(open(keys, 'b', sealUnchecked(keys, envelope(), f), new Map())).toEqual({ dropped: 'schema' });
    const full = Array.from({ length: MAX_BATCH }, () => end);
    expect(open(keys, 'b', sealUnchecked(keys, envelope(), full), new Map())).toEqual({ from: 'a', frames: full });
    expect(() => sealFrames(keys, 'a', 'b', [])).toThrow(RangeError);
    expect(() => sealFrames(keys, 'a', 'b', [...full, end])).toThrow(RangeError);
  });

  it("a response frame's place (`i`) is a whole number from 0; `seq` on a request is true or absent", () => {
    const numbered: Frame[] = [
      { ...head, i: 0 } as Frame,
      { ...data, i: 1 } as Frame,
      { ...end, i: 2 } as Frame,
      { t: 'fail', r, message: 'x', i: 3 },
    ];
    expect(open(keys, 'b', sealFrames(keys, 'a', 'b', numbered), new Map())).toEqual({ from: 'a', frames: numbered });
    for (const i of [-1, 1.5, '1', null, Number.NaN])
      expect(open(keys, 'b', sealUnchecked(keys, envelope(), { ...data, i }), new Map())).toEqual({
        dropped: 'schema',
      });
    const request = { t: 'request', r, method: 'GET', url: 'http://h/mcp', headers: [], owner: 'a'.repeat(64) };
    expect(open(keys, 'b', sealUnchecked(keys, envelope(), { ...request, seq: true }), new Map())).toMatchObject({
      frames: [{ seq: true }],
    });
    for (const seq of [false, 1, 'yes'])
      expect(open(keys, 'b', sealUnchecked(keys, envelope(), { ...request, seq }), new Map())).toEqual({
        dropped: 'schema',
      });
    // Only response frames carry a place.
    expect(open(keys, 'b', sealUnchecked(keys, envelope(), { ...request, i: 0 }), new Map())).toEqual({
      dropped: 'schema',
    });
  });

  it('a frame the receiver would refuse is refused before it is sent', () => {
    expect(() => checkFrame({ t: 'head', r, status: 200, headers: [['bad header', 'x']] })).toThrow(FrameRefused);
    expect(() =>
      seal(keys, 'a', 'b', {
        t: 'request',
        r,
        method: 'PUT' as 'POST',
        url: 'http://x/',
        headers: [],
        owner: '0'.repeat(64),
      }),
    ).toThrow(FrameRefused);
    expect(() => checkFrame(data)).not.toThrow();
    // A chunk past what any receiver takes is refused here too, though it is checked by its length alone.
    const huge = 'A'.repeat(Math.ceil((4 * 1024 * 1024) / 3) * 4 + 8);
    expect(() => checkFrame({ t: 'data', r, d: huge })).toThrow(FrameRefused);
    expect(() => checkFrame({ t: 'data', r, d: huge.slice(0, 1_000) })).not.toThrow();
  });

  it('headers: at most 256 of them, each a token name of 1–256 and a value of at most 16,384 without CR, LF or NUL, on both ends', () => {
    const name = 'x'.repeat(256);
    const value = 'v'.repeat(16_384);
    const good: unknown[] = [
      [],
      [[name, value]],
      [['x-empty', '']],
      [["!#$%&'*+.^_`|~09AZaz-", 'any text: with, punctuation; and tabs\t']],
      Array.from({ length: 256 }, (_, i) => [`h${i}`, String(i)]),
    ];
    const bad: unknown[] = [
      'content-type: text/plain',
      {},
      [['content-type']],
      [['content-type', 'text/plain', 'extra']],
      [['', 'empty name']],
      [['bad header', 'x']],
      [['bad:header', 'x']],
      [[`${name}x`, 'too long a name']],
      [['x-long', `${value}v`]],
      [['x-split', 'a\r\nset-cookie: evil=1']],
      [['x-lf', 'a\nb']],
      [['x-nul', 'a\u0000b']],
      [['x-number', 7]],
      [[7, 'x']],
      [null],
      Array.from({ length: 257 }, (_, i) => [`h${i}`, String(i)]),
    ];
    for (const headers of good) {
      const frame = { t: 'head', r, status: 200, headers } as Frame;
      expect(() => checkFrame(frame), JSON.stringify(headers).slice(0, 60)).not.toThrow();
      expect(open(keys, 'b', sealUnchecked(keys, envelope(), frame), new Map())).toEqual({
        from: 'a',
        frames: [frame],
      });
    }
    for (const headers of bad) {
      for (const frame of [
        { t: 'head', r, status: 200, headers },
        { t: 'request', r, method: 'GET', url: 'http://x/mcp', headers, owner: '0'.repeat(64) },
      ] as Frame[]) {
        const what = `${frame.t} ${JSON.stringify(headers).slice(0, 60)}`;
        expect(() => checkFrame(frame), what).toThrow(FrameRefused);
        expect(open(keys, 'b', sealUnchecked(keys, envelope(), frame), new Map()), what).toEqual({ dropped: 'schema' });
      }
    }
  });

  it('an identity is bounded by its size (client id and scopes together), not by how many scopes; a refusal names the field', () => {
    const request = (auth: unknown, more: Partial<Extract<Frame, { t: 'request' }>> = {}) =>
      ({
        t: 'request',
        r,
        method: 'POST',
        url: 'http://x/',
        headers: [],
        owner: '0'.repeat(64),
        auth,
        ...more,
      }) as Frame;
    const refusal = (frame: Frame) => {
      try {
        checkFrame(frame);
        return 'taken';
      } catch (error) {
        expect(error).toBeInstanceOf(FrameRefused);
        return (error as Error).message;
      }
    };
    const many = { clientId: 'c', scopes: Array.from({ length: 2_000 }, (_, i) => `scope.${i}`), expiresAt: 1 };
    // The bound, exactly: each scope counted one more than its length.
    const full = { clientId: 'c'.repeat(MAX_IDENTITY - 11), scopes: ['0123456789'] };
    const over = { clientId: 'c'.repeat(MAX_IDENTITY - 10), scopes: ['0123456789'] };
    for (const auth of [many, full, { clientId: '', scopes: [] }]) {
      expect(refusal(request(auth))).toBe('taken');
      const frame = request(auth);
      expect(open(keys, 'b', sealUnchecked(keys, envelope(), frame), new Map())).toEqual({
        from: 'a',
        frames: [frame],
      });
    }
    for (const auth of [
      over,
      { clientId: 'c', scopes: [1] },
      { clientId: 'c', scopes: 'read' },
      { clientId: 'c', scopes: [], token: 'a credential' },
      { clientId: 'c', scopes: [], expiresAt: 'soon' },
      null,
    ]) {
      expect(refusal(request(auth))).toMatch(
        /^a relay request frame out of bounds: its identity \(client id, scopes, extra and resource, at most 65,536 characters together\)$/,
      );
      expect(open(keys, 'b', sealUnchecked(keys, envelope(), request(auth)), new Map())).toEqual({ dropped: 'schema' });
    }
    // Each field that comes from outside is named by what it may be.
    expect(refusal(request(undefined, { url: `http://x/${'p'.repeat(8_192)}` }))).toMatch(/: its URL \(at most 8,192/);
    expect(refusal(request(undefined, { headers: [['bad header', 'x']] }))).toMatch(/: its headers \(at most 256/);
    expect(refusal(request(undefined, { method: 'PUT' as 'POST' }))).toMatch(
      /: its method \(GET, POST, DELETE or HEAD\)/,
    );
    expect(refusal({ ...head, status: 700 })).toMatch(/^a relay head frame out of bounds: its status/);
  });

  it('frames this replica makes whole are checked by their bounds alone, and refused past them like the rest', () => {
    expect(() => checkFrame({ t: 'end', r: '' })).toThrow(FrameRefused);
    expect(() => checkFrame({ t: 'abort', r: 'x'.repeat(129) })).toThrow(FrameRefused);
    expect(() => checkFrame({ t: 'fail', r, message: 'm'.repeat(2_001) })).toThrow(FrameRefused);
    expect(() => checkFrame({ t: 'ping', p: -1 })).toThrow(FrameRefused);
    expect(() => checkFrame({ t: 'pong', p: 0.5 })).toThrow(FrameRefused);
    for (const frame of [
      { t: 'end', r: 'x'.repeat(128) },
      { t: 'abort', r },
      { t: 'abort', r, resume: true },
      { t: 'fail', r, message: 'm'.repeat(2_000) },
      { t: 'hello' },
      { t: 'ping', p: 0 },
      { t: 'pong', p: Number.MAX_SAFE_INTEGER },
      data,
    ] as Frame[]) {
      expect(() => checkFrame(frame)).not.toThrow();
      // What passes here, the receiver takes.
      expect(open(keys, 'b', sealUnchecked(keys, envelope(), frame), new Map())).toEqual({
        from: 'a',
        frames: [frame],
      });
    }
    for (const frame of [
      { t: 'end', r: '' },
      { t: 'abort', r: 'x'.repeat(129) },
      { t: 'abort', r, resume: false },
      { t: 'abort', r, resume: 'yes' },
      { t: 'fail', r, message: 'm'.repeat(2_001) },
      { t: 'ping', p: -1 },
      { t: 'ping', p: 1.5 },
      { t: 'ping', p: '1' },
      { t: 'pong' },
      { t: 'pong', p: 1, r },
    ] as unknown as Frame[])
      expect(open(keys, 'b', sealUnchecked(keys, envelope(), frame), new Map())).toEqual({ dropped: 'schema' });
  });

  it('an envelope is exactly its five fields, each of its type and form, or the message is dropped', () => {
    const now = Date.now();
    const envelope = JSON.parse(sealFrames(keys, 'a', 'b', [end], now, true)) as Record<string, unknown>;
    expect(open(keys, 'b', JSON.stringify(envelope), new Map(), now)).toEqual({ from: 'a', frames: [end] });
    const bad: Record<string, unknown>[] = [
      { ...envelope, extra: true },
      Object.fromEntries(Object.entries(envelope).filter(([k]) => k !== 'x')),
      { ...envelope, from: '' },
      { ...envelope, from: 'f'.repeat(129) },
      { ...envelope, to: 7 },
      { ...envelope, n: 'short' },
      { ...envelope, n: `${String(envelope.n).slice(0, 21)}+` },
      { ...envelope, x: String(envelope.x) },
      { ...envelope, x: Number(envelope.x) + 0.5 },
      { ...envelope, x: -1 },
      { ...envelope, x: 2 ** 60 },
      { ...envelope, e: '' },
      { ...envelope, e: `${String(envelope.e)}+` },
      { ...envelope, e: null },
    ];
    for (const changed of bad)
      for (const message of [
        JSON.stringify(changed),
        `${keys.mac(JSON.stringify(changed))}.${JSON.stringify(changed)}`,
      ])
        expect(open(keys, 'b', message, new Map(), now)).toEqual({ dropped: 'envelope' });
    for (const message of ['[]', 'null', '"text"', '{"from":"a"}'])
      expect(open(keys, 'b', `${keys.mac(message)}.${message}`, new Map(), now)).toEqual({ dropped: 'envelope' });
  });

  it('every message has a nonce of its own, across refills of the random bytes they are cut from', () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 2_000; i++) nonces.add((JSON.parse(seal(keys, 'a', 'b', end).slice(44)) as { n: string }).n);
    expect(nonces.size).toBe(2_000);
    for (const n of nonces) expect(n).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('nonces are kept until their frame expires and no longer: the oldest go as new ones come', () => {
    const seen = new Map<string, number>();
    const t0 = 1_000_000_000_000;
    const first = sealFrames(keys, 'a', 'b', [end], t0);
    expect(payloadAt(first, seen, t0)).toEqual([end]);
    // Thousands of frames later, still within its life, the first is refused as seen.
    for (let i = 1; i <= 3_000; i++) open(keys, 'b', sealFrames(keys, 'a', 'b', [end], t0 + i), seen, t0 + i);
    expect(open(keys, 'b', first, seen, t0 + 3_001)).toEqual({ dropped: 'replayed' });
    // Once they have all expired, the next frame sweeps them: what is kept stays bounded.
    const later = t0 + 3_001 + FRAME_TTL_MS + 1;
    expect(payloadAt(sealFrames(keys, 'a', 'b', [end], later), seen, later)).toEqual([end]);
    expect(seen.size).toBe(1);
  });

  it('unsigned (aead): the envelope alone opens as the signed one does, and its encryption binds every field', () => {
    const now = Date.now();
    const message = sealFrames(keys, 'a', 'b', [head, data, end], now, true);
    expect(message.startsWith('{')).toBe(true);
    const seen = new Map<string, number>();
    expect(open(keys, 'b', message, seen, now)).toEqual({ from: 'a', frames: [head, data, end] });
    expect(open(keys, 'b', message, seen, now)).toEqual({ dropped: 'replayed' });
    expect(open(keys, 'b', seal(keys, 'a', 'b', end, now, true), new Map(), now)).toEqual({ from: 'a', frames: [end] });
    // Each field of the envelope changed, as JSON still well formed: the tag no longer matches.
    const envelope = JSON.parse(message) as { from: string; to: string; n: string; x: number; e: string };
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const altered: Record<string, unknown>[] = [
      { ...envelope, from: 'c' },
      { ...envelope, n: flip(envelope.n, 3) },
      { ...envelope, x: envelope.x + 1 },
      { ...envelope, e: flip(envelope.e, 5) },
      { ...envelope, e: flip(envelope.e, envelope.e.length - 2) },
      { ...envelope, e: envelope.e.slice(0, 30) },
    ];
    for (const changed of altered)
      expect(open(keys, 'b', JSON.stringify(changed), new Map(), now)).toEqual({ dropped: 'signature' });
    // Sent to another replica, it is refused before any decryption. Past its expiry it is dropped,
    // its frames told as late only when its tag holds: with another sender, nothing is told.
    expect(open(keys, 'c', message, new Map(), now)).toEqual({ dropped: 'misdirected' });
    expect(open(keys, 'b', message, new Map(), now + FRAME_TTL_MS + 1)).toEqual({
      dropped: 'expired',
      late: { from: 'a', frames: [head, data, end] },
    });
    expect(open(keys, 'b', JSON.stringify({ ...envelope, from: 'c' }), new Map(), now + FRAME_TTL_MS + 1)).toEqual({
      dropped: 'expired',
    });
    // Sealed with another secret; an extra field; not an envelope at all.
    const other = frameKey('another-secret-0123456789abcdef');
    expect(open(keys, 'b', sealFrames(other, 'a', 'b', [end], now, true), new Map(), now)).toEqual({
      dropped: 'signature',
    });
    for (const junk of [JSON.stringify({ ...envelope, extra: 1 }), '{', '{}', '{"e":"AAAA"}', JSON.stringify(end)])
      expect(open(keys, 'b', junk, new Map(), now)).toEqual({ dropped: 'envelope' });
  });

  it("a signed message's envelope sent alone is the same frame, taken once: its nonce is the same", () => {
    const now = Date.now();
    const signed = seal(keys, 'a', 'b', data, now);
    const stripped = signed.slice(44);
    const seen = new Map<string, number>();
    expect(open(keys, 'b', stripped, seen, now)).toEqual({ from: 'a', frames: [data] });
    expect(open(keys, 'b', signed, seen, now)).toEqual({ dropped: 'replayed' });
    // A signed message whose signature was swapped for another's is refused.
    const another = seal(keys, 'a', 'b', end, now);
    expect(open(keys, 'b', `${another.slice(0, 43)}.${stripped}`, new Map(), now)).toEqual({ dropped: 'signature' });
  });
});

/** The frames of `message`, opened at `now`. */
function payloadAt(message: string, seen: Map<string, number>, now: number) {
  const opened = open(keys, 'b', message, seen, now);
  if ('dropped' in opened) throw new Error(opened.dropped);
  return opened.frames;
}
