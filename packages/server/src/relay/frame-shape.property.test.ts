/**
 * What a replica takes as a frame and an envelope, against a schema written in zod from the wire
 * format's own words (the relay once checked with it; it checks field by field now, a tenth of the
 * work per message). Generated frames — valid ones, then each with a field dropped, added, or given
 * another value (edge numbers, strings at and past their bounds, wrong types, prototype keys) —
 * must be taken by `open` exactly when the schema takes them, and refused before sending by
 * `checkFrame` exactly then, with the field the schema names first.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import {
  checkFrame,
  type Frame,
  FrameRefused,
  frameKey,
  MAX_BATCH,
  MAX_DATA_BYTES,
  MAX_IDENTITY,
  open,
  sealUnchecked,
} from './frames.js';

const id = z.string().min(1).max(128);
const base64 = z
  .string()
  .max(Math.ceil(MAX_DATA_BYTES / 3) * 4 + 4)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/);
const headers = z
  .array(z.tuple([z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/), z.string().regex(/^[^\r\n\0]{0,16384}$/)]))
  .max(256);
const identity = z
  .strictObject({ clientId: z.string(), scopes: z.array(z.string()), expiresAt: z.number().optional() })
  .refine((a) => a.scopes.reduce((size, scope) => size + scope.length + 1, a.clientId.length) <= MAX_IDENTITY);
const index = z.number().int().nonnegative().optional();
const FRAME = z.discriminatedUnion('t', [
  z.strictObject({
    t: z.literal('request'),
    r: id,
    method: z.enum(['GET', 'POST', 'DELETE', 'HEAD']),
    url: z
      .string()
      .max(8_192)
      .regex(/^https?:\/\//),
    headers,
    body: base64.optional(),
    owner: z.string().regex(/^[0-9a-f]{64}$/),
    batch: z.literal(true).optional(),
    aead: z.literal(true).optional(),
    seq: z.literal(true).optional(),
    auth: identity.optional(),
    ping: z.literal(true).optional(),
  }),
  z.strictObject({ t: z.literal('abort'), r: id, resume: z.literal(true).optional() }),
  z.strictObject({
    t: z.literal('head'),
    r: id,
    status: z.number().int().min(200).max(599),
    headers,
    end: z.boolean().optional(),
    body: base64.optional(),
    i: index,
  }),
  z.strictObject({ t: z.literal('data'), r: id, d: base64, i: index }),
  z.strictObject({ t: z.literal('end'), r: id, i: index }),
  z.strictObject({ t: z.literal('fail'), r: id, message: z.string().max(2_000), i: index }),
  z.strictObject({ t: z.literal('hello') }),
  z.strictObject({ t: z.literal('ping'), p: z.number().int().nonnegative() }),
  z.strictObject({ t: z.literal('pong'), p: z.number().int().nonnegative() }),
]);
const ENVELOPE = z.strictObject({
  from: id,
  to: id,
  n: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
  x: z.number().int().nonnegative(),
  e: z.string().regex(/^[A-Za-z0-9_-]+$/),
});

const keys = frameKey('frame-shape-test-secret-0123456789abcdef');
const r = 'relay-1';
const owner = 'ab'.repeat(32);
const VALID: Record<string, unknown>[] = [
  {
    t: 'request',
    r,
    method: 'POST',
    url: 'http://h/mcp',
    headers: [['content-type', 'application/json']],
    body: 'e30=',
    owner,
    batch: true,
    aead: true,
    seq: true,
    auth: { clientId: 'c', scopes: ['a'], expiresAt: 1 },
    ping: true,
  },
  { t: 'request', r, method: 'GET', url: 'https://h/', headers: [], owner },
  { t: 'abort', r, resume: true },
  { t: 'abort', r },
  { t: 'head', r, status: 200, headers: [['x', '']], end: false, body: '', i: 0 },
  { t: 'head', r, status: 599, headers: [] },
  { t: 'data', r, d: 'AAAA', i: 3 },
  { t: 'end', r },
  { t: 'fail', r, message: 'it failed', i: 9 },
  { t: 'hello' },
  { t: 'ping', p: 0 },
  { t: 'pong', p: 7 },
];
/** Values at and just past each field's bounds, and of other types. */
const flags = [true, false, 1, 'true', null];
const counts = [0, -0, -1, 1.5, 2 ** 53 - 1, 2 ** 53, '1', null];
const ids = ['', 'x', 'x'.repeat(128), 'x'.repeat(129), 5];
const base64s = ['', 'AAAA', 'AAAA=', 'AA==', 'A===', 'A-_B', 'A A=', 7];
const EDGES: Record<string, unknown[]> = {
  t: ['request', 'abort', 'head', 'data', 'end', 'fail', 'hello', 'ping', 'pong', 'nope', '', 1],
  r: ids,
  from: ids,
  to: ids,
  method: ['GET', 'POST', 'DELETE', 'HEAD', 'PUT', 'get', ''],
  url: [
    'http://h/',
    'https://h/',
    'ftp://h/',
    'http:/h',
    '',
    `http://${'h'.repeat(8_185)}`,
    `http://${'h'.repeat(8_186)}`,
  ],
  headers: [
    [],
    [['a', 'b']],
    [['a', 'b', 'c']],
    [['a b', 'v']],
    [['', 'v']],
    [['x'.repeat(256), 'v']],
    [['x'.repeat(257), 'v']],
    [['a', 'v'.repeat(16_384)]],
    [['a', 'v'.repeat(16_385)]],
    [['a', 'v\n']],
    [['a', 'v\r']],
    [['a', 'v\0']],
    [['a']],
    [['a', 1]],
    [{ 0: 'a', 1: 'b' }],
    Array.from({ length: 256 }, () => ['a', 'b']),
    Array.from({ length: 257 }, () => ['a', 'b']),
    'a: b',
  ],
  body: base64s,
  d: base64s,
  owner: ['ab'.repeat(32), 'a'.repeat(63), 'a'.repeat(65), 'A'.repeat(64), 'g'.repeat(64)],
  batch: flags,
  aead: flags,
  seq: flags,
  ping: flags,
  resume: flags,
  end: flags,
  auth: [
    { clientId: 'c', scopes: [] },
    { clientId: 'c', scopes: ['s'], expiresAt: 1.5 },
    { clientId: 'c', scopes: [1] },
    { clientId: 'c', scopes: ['s'], expiresAt: 'soon' },
    { clientId: 'c', scopes: ['s'], extra: 1 },
    { clientId: 'c' },
    { clientId: 1, scopes: [] },
    { clientId: 'c'.repeat(MAX_IDENTITY), scopes: [] },
    { clientId: 'c'.repeat(MAX_IDENTITY - 1), scopes: ['s'] },
    [],
  ],
  status: [200, 599, 199, 600, 200.5, '200', null],
  i: counts,
  p: counts,
  x: counts,
  message: ['', 'x'.repeat(2_000), 'x'.repeat(2_001), 3],
  n: ['n'.repeat(22), 'n'.repeat(21), 'n'.repeat(23), `${'n'.repeat(21)}+`, `${'n'.repeat(21)}-`, 22],
  e: ['', 'AAAA', 'AA+A', 'AA=', 5],
};
/** A change to an object: one of its own fields (mostly) or any set to a value (their edge values mostly), or dropped. */
const change = (own: string[]) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .constantFrom(...own.filter((k) => k in EDGES), ...Object.keys(EDGES))
        .chain((k) =>
          fc.tuple(fc.constant('set' as const), fc.constant(k), fc.constantFrom(...(EDGES[k] as unknown[]))),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom('set' as const, 'drop' as const),
        fc.oneof(fc.constantFrom(...own, '__proto__', 'constructor', 'toString', 'extra'), fc.string()),
        fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)),
      ),
    },
  );
/** `base` with `changes` made: own properties, even `__proto__`, as JSON.parse makes them. */
const changed = (base: unknown, changes: readonly (readonly ['set' | 'drop', string, unknown])[]) => {
  const f: Record<string, unknown> = JSON.parse(JSON.stringify(base));
  for (const [how, k, v] of changes)
    if (how === 'drop') delete f[k];
    else Object.defineProperty(f, k, { value: v, enumerable: true, writable: true, configurable: true });
  return f;
};
/** What JSON carries of `value`. */
const carried = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
/** A valid frame, changed. */
const frame = fc
  .constantFrom(...VALID)
  .chain((base) => fc.array(change(Object.keys(base)), { maxLength: 2 }).map((changes) => changed(base, changes)));

const envelope = () => ({ from: 'a', to: 'b', n: 'n'.repeat(22), x: Date.now() + 10_000 });
let nonce = 0;
/** `value` sealed as a frame, in a message of its own (a fresh nonce each). */
const sealed = (value: unknown) =>
  sealUnchecked(keys, { ...envelope(), n: String(++nonce).padStart(22, '0') }, value, true);
const takes = (message: string) => 'frames' in open(keys, 'b', message, new Map());

describe('the shape of a frame, against the schema of the wire format', () => {
  it('every valid frame of every kind is taken, alone and in a batch', () => {
    for (const f of VALID) {
      expect(FRAME.safeParse(f).success).toBe(true);
      expect(takes(sealed(f))).toBe(true);
    }
    expect(takes(sealed(VALID))).toBe(true);
  });

  it('a changed frame is taken exactly when the schema takes it, and refused before sending exactly then', () => {
    let refused = 0;
    fc.assert(
      fc.property(frame, (f) => {
        // What arrives is what JSON carries of it (a field set to undefined is not sent).
        expect(takes(sealed(f))).toBe(FRAME.safeParse(carried(f)).success);
        const parsed = FRAME.safeParse(f);
        refused += parsed.success ? 0 : 1;
        if (f.t !== 'request' && f.t !== 'head') return;
        let thrown: unknown;
        try {
          checkFrame(f as Frame);
        } catch (error) {
          thrown = error;
        }
        expect(thrown === undefined).toBe(parsed.success);
        if (parsed.success) return;
        expect(thrown).toBeInstanceOf(FrameRefused);
        // Refused by name where the schema names a field of it first (its bounds, or `its <field>`).
        const field = parsed.error.issues[0]?.path[0];
        if (typeof field === 'string' && field !== 't') expect((thrown as Error).message).toMatch(/: its /);
      }),
      { numRuns: 3_000 },
    );
    // The generator refuses as often as it takes: both sides are exercised.
    expect(refused).toBeGreaterThan(500);
  });

  it('a batch is taken exactly when each of its frames is, with 1 to MAX_BATCH of them', () => {
    fc.assert(
      fc.property(fc.array(frame, { minLength: 0, maxLength: 4 }), fc.boolean(), (list, long) => {
        const batch = long ? [...list, ...Array.from({ length: MAX_BATCH - 1 }, () => ({ t: 'end', r }))] : list;
        const expected =
          batch.length >= 1 && batch.length <= MAX_BATCH && batch.every((f) => FRAME.safeParse(carried(f)).success);
        expect(takes(sealed(batch))).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('an envelope is taken exactly when the schema takes it', () => {
    const good = JSON.parse(sealed(VALID[7])) as Record<string, unknown>;
    const envelopes = fc.array(change(Object.keys(good)), { maxLength: 2 }).map((changes) => changed(good, changes));
    fc.assert(
      fc.property(envelopes, (e) => {
        // Taken by the schema, it may still be dropped later (altered: it no longer decrypts), never as an envelope.
        const result = open(keys, 'b', JSON.stringify(e), new Map());
        expect('dropped' in result && result.dropped === 'envelope').toBe(!ENVELOPE.safeParse(carried(e)).success);
      }),
      { numRuns: 1_000 },
    );
  });
});
