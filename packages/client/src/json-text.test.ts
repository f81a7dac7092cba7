import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText, walkJson } from './json-text.js';

/** `[[[…0…]]]` and `{"a":{"a":…0…}}`, `depth` levels: read by JSON.parse, past JSON.stringify's stack. */
const deepArrayText = (depth: number): string => `${'['.repeat(depth)}0${']'.repeat(depth)}`;
const deepObjectText = (depth: number): string => `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;

/** JSON with each object's keys sorted, by recursion: the reference for `sortKeys` on shallow values. */
function sortedText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedText).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedText((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

describe('jsonText', () => {
  it('writes what JSON.stringify writes (the walk itself, on values both can take)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(walkJson(value, false)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it('indents as JSON.stringify does, where it can', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 1, 2, 4, 10), (value, space) => {
        expect(jsonText(value, { space })).toBe(JSON.stringify(value, null, space));
      }),
      { numRuns: 200 },
    );
  });

  it('writes what JSON.stringify writes of what JSON cannot hold: undefined, functions, symbols, NaN, holes, toJSON, boxed values', () => {
    const holes: unknown[] = [undefined, () => 1, Symbol('s')];
    holes[4] = 1; // index 3 a hole
    const odd = [
      { a: undefined, b: () => 1, c: Symbol('s'), d: Number.NaN, e: -0, f: Number.POSITIVE_INFINITY },
      holes,
      { when: new Date(0), nested: { toJSON: (key: string) => `key ${key}` } },
      [new Number(1), new String('s'), new Boolean(false)],
      { '': { '\u2028': 'line\u2029separator', '\ud800': 'half \udfff' } },
      undefined,
      () => 1,
      'text',
      {},
      [],
      [[], {}, [{}]],
    ];
    for (const value of odd) expect(walkJson(value, false)).toBe(JSON.stringify(value));
  });

  it('sorts the keys of each object at every level with sortKeys', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonText(value, { sortKeys: true })).toBe(sortedText(value));
      }),
      { numRuns: 300 },
    );
    expect(jsonText({ b: { d: 1, c: 2 }, a: [{ z: 0, y: 1 }] }, { sortKeys: true })).toBe(
      '{"a":[{"y":1,"z":0}],"b":{"c":2,"d":1}}',
    );
    // Code-unit order, not an object's own (which puts keys that read as indexes first).
    expect(jsonText({ b: 0, '10': 0, '': 0, '9': 0 }, { sortKeys: true })).toBe('{"":0,"10":0,"9":0,"b":0}');
  });

  it.each([
    ['arrays', deepArrayText],
    ['objects', deepObjectText],
  ])(
    'writes %s nested 100,000 deep, where JSON.stringify overflows the stack: on one line, even asked to indent',
    (_, deep) => {
      const value = JSON.parse(deep(100_000));
      expect(() => JSON.stringify(value)).toThrow(RangeError);
      expect(jsonText(value)).toBe(deep(100_000));
      expect(jsonText(value, { sortKeys: true })).toBe(deep(100_000));
      // Indented, its text would be 10 GB of spaces: as long as the value's own.
      expect(jsonText(value, { space: 2 })).toBe(deep(100_000));
    },
  );

  it('refuses a cycle with the TypeError JSON.stringify gives, near the top or past its stack', () => {
    const near: Record<string, unknown> = {};
    near.self = near;
    expect(() => jsonText(near)).toThrow(TypeError);
    const far = JSON.parse(deepObjectText(10_000)) as Record<string, unknown>;
    let inner = far;
    while (typeof inner.a === 'object') inner = inner.a as Record<string, unknown>;
    inner.a = far;
    expect(() => jsonText(far)).toThrow(/circular/);
    expect(() => jsonText(far, { sortKeys: true })).toThrow(/circular/);
  });

  it('writes one value met twice (not a cycle) twice, as JSON.stringify does', () => {
    const shared = { x: [1] };
    expect(jsonText({ a: shared, b: [shared, shared] }, { sortKeys: true })).toBe(
      '{"a":{"x":[1]},"b":[{"x":[1]},{"x":[1]}]}',
    );
  });
});
