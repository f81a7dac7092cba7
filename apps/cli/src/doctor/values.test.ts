import { describe, expect, it } from 'vitest';
import { sampleArguments } from './values.js';

describe('sampleArguments on server-sent schemas', () => {
  it.each([
    ['required as a number', { required: 5 }, {}],
    ['required as text', { required: 'env' }, {}],
    ['properties as a list', { properties: [1], required: ['env'] }, { env: 'doctor' }],
    ['a property that is text', { properties: { env: 'string' }, required: ['env'] }, { env: 'doctor' }],
    ['an enum that is not a list', { properties: { env: { enum: 'dev' } }, required: ['env'] }, { env: 'doctor' }],
    ['not an object at all', 'schema', {}],
  ])('%s: no crash', (_label, schema, expected) => {
    expect(sampleArguments(schema)).toEqual(expected);
  });

  it('keeps a required __proto__ an ordinary argument', () => {
    const args = sampleArguments(JSON.parse('{"properties":{"__proto__":{"type":"object"}},"required":["__proto__"]}'));
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args)).toEqual(['__proto__']);
  });
});
