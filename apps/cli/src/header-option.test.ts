import { describe, expect, it } from 'vitest';
import { headerOptions } from './header-option.js';
import { UsageError } from './usage.js';

describe('--header: one syntax for tools, call, doctor and install', () => {
  it('reads "Name: value", and Name=value the same; the first separator ends the name', () => {
    expect(headerOptions(['Authorization: Bearer ek_a:b=c', 'X-Team=ops: blue'])).toEqual({
      Authorization: 'Bearer ek_a:b=c',
      'X-Team': 'ops: blue',
    });
  });

  it('refuses what is no header name, and a name given twice whatever its case', () => {
    for (const bad of ['no separator', ': value', 'Bad Name: v', 'Ünïcode: v', '=v'])
      expect(() => headerOptions([bad]), bad).toThrow(UsageError);
    expect(() => headerOptions(['A: 1', 'a: 2'])).toThrow('--header a is given twice');
  });

  it('a header named __proto__ stays a header', () => {
    const out = headerOptions(['__proto__: x']);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
