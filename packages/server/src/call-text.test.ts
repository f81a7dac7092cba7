import { describe, expect, it } from 'vitest';
import { callDigest, callText } from './state.js';

/** The canonical text as it was written before (map, sort, join): states in flight were sealed with its digest. */
function before(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(before).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${before((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// biome-ignore lint/suspicious/noSparseArray: a hole is one of the inputs compared.
const sparse = [1, , 3];
const samples: unknown[] = [
  undefined,
  {},
  { service: 'order-service' },
  { z: 1, a: [true, null, 2.5, 'x'], m: { b: { d: 1, c: 2 }, a: [] } },
  JSON.parse('{"__proto__": {"polluted": 1}, "constructor": "x", "toString": 2}'),
  { é: 'ü', '\u2028': '\u0000"\\', '10': 'ten', '9': 'nine', '': '' },
  { missing: undefined, fn: () => 1, big: 1e21, neg: -0, nan: Number.NaN },
  [[[]], [{}], sparse, [undefined]],
  { date: new Date(0), nested: [{ y: 2, x: 1 }] },
];

describe('callText', () => {
  it('writes exactly the text the earlier map/join form wrote', () => {
    for (const args of samples) expect(callText('deploy', args)).toBe(`deploy\0${before(args ?? {})}`);
  });

  it('is the same for the same arguments in another key order, different for other arguments or tools', async () => {
    const a = callText('deploy', { service: 'api', env: { region: 'eu', zone: 1 } });
    const b = callText('deploy', { env: { zone: 1, region: 'eu' }, service: 'api' });
    expect(a).toBe(b);
    expect(await callDigest(a ?? '')).toBe(await callDigest(b ?? ''));
    expect(callText('deploy', { service: 'api ' })).not.toBe(callText('deploy', { service: 'api' }));
    expect(callText('rollback', { service: 'api' })).not.toBe(callText('deploy', { service: 'api' }));
    // A key cannot smuggle structure: its quotes and separators are escaped.
    expect(callText('deploy', { 'a":1,"b': 2 })).not.toBe(callText('deploy', { a: 1, b: 2 }));
  });

  it('is undefined for arguments nested deeper than the stack walks, not a thrown stack error', () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(callText('deploy', { note: deep })).toBeUndefined();
  });
});
