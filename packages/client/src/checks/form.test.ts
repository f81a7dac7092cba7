import { describe, expect, it } from 'vitest';
import { checkFormRequest } from './form.js';

const message = 'Sign in to the deployment console to continue.';

describe('checkFormRequest', () => {
  it('returns the parsed schema, the field model, the findings and the secret fields', () => {
    const checked = checkFormRequest({
      message,
      requestedSchema: {
        type: 'object',
        properties: { user: { type: 'string', title: 'User' }, apiKey: { type: 'string', title: 'API key' } },
      },
    });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.fields.map((f) => f.name)).toEqual(['user', 'apiKey']);
    expect(checked.secretFields).toEqual(['apiKey']);
    expect(checked.findings.map((f) => f.rule)).toEqual(['EK09']);
  });

  it('lists every problem with its fix when the schema is outside the subset', () => {
    const checked = checkFormRequest({
      message,
      requestedSchema: {
        type: 'object',
        properties: { a: { type: 'object', properties: {} }, b: { type: 'string', pattern: '^x' } },
      },
    });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.message.split('\n')).toHaveLength(3);
    expect(checked.message).toMatch(/Flatten it/);
    expect(checked.message).toMatch(/pattern/);
  });

  it('refuses a default that breaks its own field (EK15)', () => {
    const checked = checkFormRequest({
      message,
      requestedSchema: { type: 'object', properties: { n: { type: 'integer', title: 'N', maximum: 3, default: 9 } } },
    });
    expect(checked).toMatchObject({ ok: false, message: expect.stringMatching(/default 9/) });
  });

  it('reports structural problems and bad defaults together, one sentence each', () => {
    const checked = checkFormRequest({
      message,
      requestedSchema: {
        type: 'object',
        properties: { a: { type: 'object' }, e: { type: 'string', title: 'E', enum: ['x'], default: 'y' } },
        required: ['zz'],
      },
    });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.message.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^- field "a" is a nested object\. Flatten it/),
      expect.stringMatching(/^- required names "zz", which is not a field\. /),
      expect.stringMatching(/^- field "e" has default "y" that breaks its own field: .* options\. Change the default/),
    ]);
    expect(checked.message).not.toContain('..');
  });

  it('accepts an empty form (EK02 is reported, not refused: accept {} is a valid answer)', () => {
    const checked = checkFormRequest({ message, requestedSchema: { type: 'object', properties: {} } });
    expect(checked.ok && checked.findings.map((f) => f.rule)).toEqual(['EK02']);
  });
});

describe('checkFormRequest reads a hostile message in time proportional to its length', () => {
  // A client lints every message a server sends before showing it (here, under the 65,536 limit): a pattern that backtracks
  // (a run of spaces before the end, an unclosed quote rescanned to the end from each of many)
  // would hold its event loop for minutes. Measured as CPU time against a plain message of the
  // same length in the same process, not as a wall-clock figure: quadratic work reads over 100
  // times the plain message's here at 40,000 characters, linear work about as much.
  const N = 40_000;
  const schema = {
    type: 'object',
    properties: { env: { type: 'string', title: 'Environment', enum: ['dev', 'prod'] } },
    required: ['env'],
  } as const;
  const cpu = (message: string) => {
    const before = process.cpuUsage();
    checkFormRequest({ message, requestedSchema: schema });
    const used = process.cpuUsage(before);
    return used.user + used.system;
  };
  const costOf = (message: string) => Math.min(cpu(message), cpu(message), cpu(message));
  it.each([
    ['spaces before a last word', `Enter value${' '.repeat(N)}x`],
    ['spaces in a Chinese generic message', `请输入${' '.repeat(N)}x`],
    ['unclosed curly quotes', '\u201c'.repeat(N)],
    ['unclosed corner brackets', '「'.repeat(N)],
    ['unclosed white corner brackets', '『'.repeat(N)],
  ])('%s', (_shape, hostile) => {
    const plain = `Enter the value for this deployment ${'a b '.repeat(N / 4)}`.slice(0, hostile.length);
    costOf(plain);
    // The plain message's cost is at least a millisecond's worth, so the ratio is not read off noise.
    const baseline = Math.max(costOf(plain), 1_000);
    expect(costOf(hostile)).toBeLessThan(baseline * 10);
  });
});

describe('checkFormRequest: a question no answer can carry', () => {
  const unanswerableOf = (properties: Record<string, unknown>) => {
    const checked = checkFormRequest({ message, requestedSchema: { type: 'object', properties } });
    if (!checked.ok) throw new Error(checked.message);
    return checked.unanswerable;
  };

  it('names each field whose name or a choice holds half a character, and where', () => {
    expect(
      unanswerableOf({
        'a\ud800': { type: 'string' },
        env: { type: 'string', enum: ['dev', 'pr\udc00od'] },
        pick: { type: 'string', oneOf: [{ const: 'x\ud800', title: 'X' }] },
        tags: { type: 'array', items: { type: 'string', anyOf: [{ const: 'b\ud800', title: 'B' }] } },
        fine: { type: 'string', enum: ['a', 'b'] },
      }),
    ).toEqual([
      { reason: 'half-character', field: 'a\ud800', where: 'name' },
      { reason: 'half-character', field: 'env', where: 'choice' },
      { reason: 'half-character', field: 'pick', where: 'choice' },
      { reason: 'half-character', field: 'tags', where: 'choice' },
    ]);
  });

  it('none for half a character only where it is read (titles, help, option titles) or a whole pair', () => {
    expect(
      unanswerableOf({
        note: { type: 'string', title: 'N\ud800te', description: 'd\udc00' },
        pick: { type: 'string', oneOf: [{ const: 'x', title: 'X\ud800' }] },
        emoji: { type: 'string', enum: ['\ud83d\ude00'] },
      }),
    ).toEqual([]);
  });
});
