import { describe, expect, it } from 'vitest';
import { shapesNotIn20250618 } from './legacy-shapes.js';

const request = (properties: unknown, extra: Record<string, unknown> = {}) => ({
  message: 'Which environment?',
  requestedSchema: { type: 'object', properties },
  ...extra,
});

describe('shapes a 2025-06-18 client does not have (EK17)', () => {
  it('lets through what the revision has: enum + enumNames, formats, bounds, boolean defaults', () => {
    expect(
      shapesNotIn20250618(
        request({
          env: { type: 'string', enum: ['dev'], enumNames: ['Development'] },
          email: { type: 'string', format: 'email' },
          n: { type: 'integer', minimum: 1 },
          ok: { type: 'boolean', default: false },
        }),
      ),
    ).toEqual([]);
  });

  it('names mode, titled selects, multi-selects and non-boolean defaults, one finding per field', () => {
    const found = shapesNotIn20250618(
      request(
        {
          a: { type: 'string', oneOf: [{ const: 'x', title: 'X' }] },
          b: { type: 'array', items: { type: 'string', enum: ['x'] }, default: ['x'] },
          c: { type: 'string', default: 'x'.repeat(100) },
          d: { type: 'string', anyOf: [{ const: 'x', title: 'X' }] },
        },
        { mode: 'form' },
      ),
    );
    expect(found.map((f) => [f.field, f.message])).toEqual([
      [undefined, 'the request carries mode "form", which 2025-06-18 does not have'],
      ['a', '"a" is sent as a titled select (oneOf), which 2025-06-18 does not have'],
      [
        'b',
        '"b" is sent as a multi-select with a default on a non-boolean field (["x"]), which 2025-06-18 does not have',
      ],
      ['c', `"c" is sent with a default on a non-boolean field ("${'x'.repeat(36)}…), which 2025-06-18 does not have`],
      ['d', '"d" is sent as a titled select (anyOf), which 2025-06-18 does not have'],
    ]);
  });

  it.each([[null], ['x'], [[1]], [{ a: null }], [{ a: 'string' }]])(
    'reads hostile properties %j without throwing',
    (p) => {
      expect(() => shapesNotIn20250618(request(p))).not.toThrow();
      expect(shapesNotIn20250618({})).toEqual([]);
    },
  );
});
