import { describe, expect, it } from 'vitest';
import { describeArguments, toolArguments } from './arguments.js';
import type { InputSchema } from './input-schema.js';

const schema: InputSchema = {
  properties: {
    service: { type: 'string', description: 'Service name' },
    env: { type: 'string', enum: ['dev', 'prod'] },
    replicas: { type: 'integer' },
    ratio: { type: 'number' },
    dryRun: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    meta: { type: 'object' },
  },
  required: ['service'],
};

describe('toolArguments', () => {
  it('coerces k=v words by the input schema and merges --args', () => {
    expect(
      toolArguments(
        schema,
        ['service=order-service', 'replicas=3', 'ratio=0.5', 'dryRun=yes', 'tags=a, b', 'meta={"x":1}'],
        '{"env":"prod"}',
      ),
    ).toEqual({
      env: 'prod',
      service: 'order-service',
      replicas: 3,
      ratio: 0.5,
      dryRun: true,
      tags: ['a', 'b'],
      meta: { x: 1 },
    });
    expect(toolArguments(schema, ['tags=["x","y"]', 'service=a=b'], undefined)).toEqual({
      tags: ['x', 'y'],
      service: 'a=b',
    });
  });

  it.each([
    [['replicas=three'], undefined, /replicas=three: expected a number/],
    [['replicas=1.5'], undefined, /expected a whole number/],
    [['dryRun=maybe'], undefined, /expected true or false/],
    [['env=staging'], undefined, /expected one of dev, prod/],
    [['meta={oops'], undefined, /expected JSON/],
    [['nope=1'], undefined, /unknown argument "nope" \(arguments: service, env, replicas, ratio, dryRun, tags, meta\)/],
    [['service'], undefined, /"service" is not an argument: write key=value/],
    [[], '{bad', /--args is not valid JSON/],
    [[], '[1]', /--args must be a JSON object/],
  ])('%j %s is a clear usage error', (words, json, message) => {
    expect(() => toolArguments(schema, words, json)).toThrow(message);
  });

  it('keeps a __proto__ argument as a plain key', () => {
    const args = toolArguments(undefined, ['__proto__=x'], undefined);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args)).toEqual(['__proto__']);
  });

  it('describes arguments for tools', () => {
    expect(describeArguments(schema).slice(0, 3)).toEqual([
      'service: string — Service name',
      'env?: dev|prod',
      'replicas?: integer',
    ]);
  });
});
