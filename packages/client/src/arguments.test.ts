import { describe, expect, it } from 'vitest';
import { describeArguments, toolArguments } from './arguments.js';
import { MAX_TYPED_DEPTH } from './arguments-json.js';
import { ArgumentError } from './errors.js';
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
  it('quotes a refused k=v value by its first 200 characters, whole ones', () => {
    const long = `${'7'.repeat(199)}😀${'x'.repeat(100_000)}`;
    expect(() => toolArguments(schema, [`replicas=${long}`], undefined)).toThrow(
      `replicas=${'7'.repeat(199)}😀…: expected a number`,
    );
    expect(() => toolArguments(schema, [`env=${'p'.repeat(300)}`], undefined)).toThrow(
      `env=${'p'.repeat(200)}…: expected one of dev, prod`,
    );
    expect(() => toolArguments(schema, [`meta={"a":1,"a":2,"pad":"${'x'.repeat(300)}"}`], undefined)).toThrow(
      /^meta=\{"a":1,"a":2,"pad":"x{180}…: \$\.a is given twice/,
    );
  });

  it("lists a server's choices and argument names by the first 20, each by its first 200 characters", () => {
    const many = Array.from({ length: 50 }, (_, i) => `c${i}`);
    const wide: InputSchema = { properties: { env: { type: 'string', enum: [`${'w'.repeat(5_000)}`, ...many] } } };
    const names = Object.fromEntries(many.map((n) => [n, { type: 'string' }]));
    expect(() => toolArguments(wide, ['env=x'], undefined)).toThrow(
      /^env=x: expected one of w{200}…, c0, .*, c18 and 31 more$/,
    );
    expect(() => toolArguments({ properties: names }, ['typo=1'], undefined)).toThrow(/c19 and 30 more\)$/);
  });

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

  describe('a number arrives as the value typed, or is refused', () => {
    const numbers: InputSchema = {
      properties: {
        replicas: { type: 'integer' },
        ratio: { type: 'number' },
        zip: { type: ['string', 'integer'] },
        amount: { type: ['number', 'string'] },
      },
    };
    const sent = (word: string) => toolArguments(numbers, [word], undefined);

    it.each([
      ['replicas=3', { replicas: 3 }],
      ['replicas=-2', { replicas: -2 }],
      ['replicas=9007199254740991', { replicas: 9007199254740991 }],
      ['ratio=2.50', { ratio: 2.5 }],
      ['ratio=1e3', { ratio: 1000 }],
      ['ratio=-0.125', { ratio: -0.125 }],
      ['ratio=0.1', { ratio: 0.1 }],
      ['zip=2134', { zip: 2134 }],
      ['zip=02134', { zip: '02134' }],
      ['zip=ABC', { zip: 'ABC' }],
      ['zip=0x10', { zip: '0x10' }],
      ['zip=9007199254740993', { zip: '9007199254740993' }],
      ['amount=2.5', { amount: 2.5 }],
      ['amount=2.50', { amount: '2.50' }],
      ['amount=1e3', { amount: '1e3' }],
    ])('%s → %j', (word, args) => {
      expect(sent(word)).toEqual(args);
    });

    it.each([
      [
        'replicas=9007199254740993',
        'replicas=9007199254740993: 9007199254740993 cannot be sent exactly: it would arrive as 9007199254740992',
      ],
      ['replicas=9007199254740992', /whole numbers within ±9007199254740991 only/],
      ['ratio=9007199254740992', /whole numbers within ±9007199254740991 only/],
      ['ratio=-1e21', /whole numbers within ±9007199254740991 only/],
      ['replicas=0x10', /replicas=0x10: expected a number/],
      ['replicas=0b101', /expected a number/],
      ['replicas=0o17', /expected a number/],
      ['replicas=Infinity', /expected a number/],
      ['replicas=1e3', 'replicas=1e3: expected a whole number'],
      ['ratio=0x10', /expected a number/],
      ['ratio=9007199254740993', /cannot be sent exactly: it would arrive as 9007199254740992/],
      ['ratio=1e400', /expected a number/],
      ['ratio=1e-400', /cannot be sent exactly: it would arrive as 0/],
      ['ratio=0.1000000000000000000001', /cannot be sent exactly/],
    ])('%s is a usage error', (word, message) => {
      expect(() => sent(word)).toThrow(message);
    });

    it('a comma-separated list is read by its items type, each held to the same rules', () => {
      const lists: InputSchema = {
        properties: {
          ids: { type: 'array', items: { type: 'integer' } },
          flags: { type: 'array', items: { type: 'boolean' } },
          envs: { type: 'array', items: { type: 'string', enum: ['dev', 'prod'] } },
          tags: { type: 'array' },
        },
      };
      expect(toolArguments(lists, ['ids=1, 2,3', 'flags=yes,no', 'envs=dev,prod', 'tags=a,b'], undefined)).toEqual({
        ids: [1, 2, 3],
        flags: [true, false],
        envs: ['dev', 'prod'],
        tags: ['a', 'b'],
      });
      expect(() => toolArguments(lists, ['ids=1,0x10'], undefined)).toThrow('ids[1]=0x10: expected a number');
      expect(() => toolArguments(lists, ['ids=9007199254740993'], undefined)).toThrow(/ids\[0\]=9007199254740993/);
      expect(() => toolArguments(lists, ['envs=dev,staging'], undefined)).toThrow(
        'envs[1]=staging: expected one of dev, prod',
      );
    });

    it('a number of a million digits, zeros inside, is judged in one pass (no trailing-zero search from each zero)', () => {
      const objects: InputSchema = { properties: { ratio: { type: 'number' } } };
      const long = `1.${'0'.repeat(1_000_000)}1`;
      expect(() => toolArguments(objects, [], `{"ratio": ${long}}`)).toThrow(
        /cannot be sent exactly: it would arrive as 1$/,
      );
      expect(() => toolArguments(objects, [`ratio=${long}`], undefined)).toThrow(
        /cannot be sent exactly: it would arrive as 1$/,
      );
      expect(toolArguments(objects, [], `{"ratio": 1.${'0'.repeat(1_000_000)}}`)).toEqual({ ratio: 1 });
    });

    it('--args and JSON values: a number JSON cannot read as written is refused, naming where', () => {
      const objects: InputSchema = { properties: { meta: { type: 'object' }, replicas: { type: 'integer' } } };
      expect(() => toolArguments(objects, [], '{"replicas": 9007199254740993}')).toThrow(
        '--args: $.replicas 9007199254740993 cannot be sent exactly: it would arrive as 9007199254740992',
      );
      expect(() => toolArguments(objects, [], '{"meta": {"ids": [1, 1e400]}}')).toThrow(
        '--args: $.meta.ids[1] 1e400 cannot be sent exactly: it would arrive as null',
      );
      expect(() => toolArguments(objects, ['meta={"n":18446744073709551616}'], undefined)).toThrow(
        /\$\.n 18446744073709551616 cannot be sent exactly/,
      );
      // Exact ones go through, fractions included.
      expect(toolArguments(objects, ['meta={"n":9007199254740991,"r":0.1}'], '{"replicas": 3}')).toEqual({
        replicas: 3,
        meta: { n: 9007199254740991, r: 0.1 },
      });
    });
  });

  describe('JSON (--args, a k={…} value) is sent as typed, or refused naming where', () => {
    const objects: InputSchema = { properties: { meta: { type: 'object' }, tags: { type: 'array' } } };
    const viaArgs = (json: string) => () => toolArguments(objects, [], json);
    const viaWord = (word: string) => () => toolArguments(objects, [word], undefined);

    it.each([
      ['{"ratio": 1e-400}', '$.ratio 1e-400 cannot be sent exactly: it would arrive as 0'],
      ['{"ratio": 0.1e-330}', '$.ratio 0.1e-330 cannot be sent exactly: it would arrive as 0'],
      [
        '{"ratio": 0.10000000000000000001}',
        '$.ratio 0.10000000000000000001 cannot be sent exactly: it would arrive as 0.1',
      ],
      [
        '{"n": 123456789012345678901234567890}',
        '$.n 123456789012345678901234567890 cannot be sent exactly: it would arrive as 1.2345678901234568e+29',
      ],
      [
        '{"n": 9007199254740992}',
        '$.n 9007199254740992 cannot be sent exactly: whole numbers within ±9007199254740991 only',
      ],
      ['{"n": 1e21}', '$.n 1e21 cannot be sent exactly: whole numbers within'],
      ['{"a": [1, -0]}', '$.a[1] -0 cannot be sent exactly: JSON has no negative zero, it would arrive as 0'],
      ['{"a": -0.0e5}', '$.a -0.0e5 cannot be sent exactly: JSON has no negative zero'],
      ['{"a": 1, "a": 2}', '$.a is given twice: JSON keeps only the last value'],
      ['{"ab": 1, "a\\u0062": 2}', '$.ab is given twice'],
      ['{"x": {"b": [1, {"c": 1, "c": 2}]}}', '$.x.b[1].c is given twice'],
      ['{"s": "ok\\ud800"}', '$.s holds half of a character'],
      ['{"s": ["\\udc00"]}', '$.s[0] holds half of a character'],
      ['{"\\ud800": 1}', '$.\uFFFD holds half of a character'],
      [`{"n": 1${'0'.repeat(500)}}`, `$.n 1${'0'.repeat(39)}… cannot be sent exactly`],
    ])('--args %s: refused, %s', (json, said) => {
      expect(viaArgs(json)).toThrow(`--args: ${said}`);
      // The value quoted by its first 200 characters.
      expect(viaWord(`meta=${json}`)).toThrow(`meta=${json.length > 200 ? `${json.slice(0, 200)}…` : json}: ${said}`);
    });

    it('what is sent exactly goes through, spelled any way JSON spells it', () => {
      const json =
        '{"q":"a\\"1e-400, -0","r":[0.1,-3e+2,1E2,2.50,0,0.0,5e-324],"x":{"b":1},"y":{"b":1},"e":"\\ud83d\\ude00"}';
      expect(toolArguments(objects, [], json)).toEqual({
        q: 'a"1e-400, -0',
        r: [0.1, -300, 100, 2.5, 0, 0, 5e-324],
        x: { b: 1 },
        y: { b: 1 },
        e: '😀',
      });
      expect(toolArguments(objects, ['tags=[9007199254740991,-9007199254740991]'], undefined)).toEqual({
        tags: [9007199254740991, -9007199254740991],
      });
    });

    it('JSON is read without recursion up to 1,000 levels (MAX_TYPED_DEPTH); deeper is refused, not left to overflow the SDK', () => {
      const nested = (levels: number, inner = '1') =>
        `{"meta":${'['.repeat(levels - 1)}${inner}${']'.repeat(levels - 1)}}`;
      expect(MAX_TYPED_DEPTH).toBe(1_000);
      expect(viaArgs(nested(1_000, '1e-400'))).toThrow(/cannot be sent exactly: it would arrive as 0/);
      expect(toolArguments(objects, [], nested(1_000))).toHaveProperty('meta');
      const refused = `--args: $.meta${'[0]'.repeat(18)}… nests deeper than 1000 levels of objects and arrays: a message so deep cannot be written (send it flatter)`;
      expect(viaArgs(nested(1_001))).toThrow(refused);
      // Far past JSON.stringify's stack: refused as early, the rest of the text not read.
      expect(viaArgs(nested(200_000, '1e-400'))).toThrow(refused);
      // As a k=v value, the value is the first level.
      expect(toolArguments(objects, [`tags=${'['.repeat(1_000)}${']'.repeat(1_000)}`], undefined)).toHaveProperty(
        'tags',
      );
      expect(viaWord(`tags=${'['.repeat(1_001)}${']'.repeat(1_001)}`)).toThrow(
        /^tags=\[{200}…: \$(\[0\]){19}\[0… nests deeper than 1000 levels/,
      );
      // A key's characters are cut whole: the 60th is an emoji, not half of one.
      const keyed = `{"${'k'.repeat(59)}😀x":${'['.repeat(1_000)}${']'.repeat(1_000)}}`;
      expect(viaArgs(keyed)).toThrow(`--args: $.${'k'.repeat(58)}… nests deeper`);
    });
  });

  describe('a number typed as a k=v value is read as the same number typed in --args', () => {
    const numbers: InputSchema = { properties: { replicas: { type: 'integer' }, ratio: { type: 'number' } } };
    /** The problem `toolArguments` refuses with, as data, or the arguments. */
    const read = (words: string[], json?: string): unknown => {
      try {
        return { args: toolArguments(numbers, words, json) };
      } catch (error) {
        if (!(error instanceof ArgumentError)) throw error;
        return error.problem;
      }
    };
    const reasonOf = (problem: unknown) =>
      (problem as { reason?: unknown; expected?: { reason?: unknown } }).reason ??
      (problem as { expected?: { reason?: unknown } }).expected?.reason;

    it.each([
      ['ratio', '-0', 'negative-zero'],
      ['ratio', '-0.0', 'negative-zero'],
      ['replicas', '-0', 'negative-zero'],
      ['ratio', '9007199254740992', 'unsafe-integer'],
      ['ratio', '-9007199254740992', 'unsafe-integer'],
      ['ratio', '1e21', 'unsafe-integer'],
      ['replicas', '9007199254740992', 'unsafe-integer'],
      ['ratio', '9007199254740993', 'inexact'],
      ['replicas', '9007199254740993', 'inexact'],
      ['ratio', '1e-400', 'inexact'],
      ['ratio', '0.30000000000000000001', 'inexact'],
    ])('%s=%s is refused both ways, for the same reason (%s)', (key, typed, kind) => {
      const asWord = read([`${key}=${typed}`]);
      const asJson = read([], `{"${key}":${typed}}`);
      expect(asWord).toMatchObject({ kind: 'bad-value', key, raw: typed });
      expect(asJson).toMatchObject({ kind: 'not-as-typed', in: { args: true }, path: `$.${key}` });
      expect(reasonOf(asWord)).toMatchObject({ kind });
      expect(reasonOf(asWord)).toEqual(reasonOf(asJson));
    });

    it.each([
      ['ratio', '1.0', 1],
      ['replicas', '1', 1],
      ['ratio', '1e2', 100],
      ['ratio', '2.50', 2.5],
      ['ratio', '-9007199254740991', -9007199254740991],
      ['replicas', '9007199254740991', 9007199254740991],
    ])('%s=%s is taken both ways, as %s', (key, typed, value) => {
      expect(read([`${key}=${typed}`])).toEqual({ args: { [key]: value } });
      expect(read([], `{"${key}":${typed}}`)).toEqual({ args: { [key]: value } });
    });
  });

  it.each([
    ['ratio=-0', 'ratio=-0: -0 cannot be sent exactly: JSON has no negative zero, it would arrive as 0'],
    ['replicas=-0', 'replicas=-0: -0 cannot be sent exactly: JSON has no negative zero'],
    ['ratio=-0.0', 'ratio=-0.0: -0.0 cannot be sent exactly'],
    ['service=a\ud800', 'service: holds half of a character'],
  ])('k=v %s is refused: %s', (word, said) => {
    expect(() => toolArguments(schema, [JSON.parse(`"${word}"`) as string], undefined)).toThrow(said);
  });

  it.each([
    [['replicas=1', 'replicas=2'], undefined],
    [['replicas=1'], '{"replicas":2}'],
    [['replicas=2'], '{"replicas":2}'],
    [['__proto__=a', '__proto__=b'], undefined],
  ])('an argument given twice (%j, --args %s) is refused, not one of them dropped', (words, json) => {
    const key = (words[0] ?? '').split('=')[0] ?? '';
    const refused = () => toolArguments(key === '__proto__' ? undefined : schema, words, json);
    expect(refused).toThrow(`${key}: given twice; give it once`);
    try {
      refused();
    } catch (error) {
      expect((error as ArgumentError).problem).toEqual({ kind: 'given-twice', key });
    }
  });

  it('-0 for a property that also takes a string is the text typed', () => {
    expect(toolArguments({ properties: { zip: { type: ['string', 'number'] } } }, ['zip=-0'], undefined)).toEqual({
      zip: '-0',
    });
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
