import { field, form } from '@elicitkit/form';
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { type Connected, call, connect } from '../test/harness.js';
import { FormLintError } from './errors.js';
import { createElicitkit } from './kit.js';
import { match, type Outcome } from './outcome.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

const secret = form({ password: field.string({ title: 'Password', minLength: 8 }) });
const chinese = form({ mima: field.string({ title: '数据库密码' }) });
const yesByDefault = form({ confirmed: field.boolean({ title: 'I confirm the deletion', default: true }) });
const fine = form({ env: field.select([{ value: 'dev', title: 'Development' }], { title: 'Environment' }) });

describe('defineTool: lint at definition time', () => {
  it.each([
    ['a password field', secret, /EK09 \(password\)/],
    ['a Chinese 密码 field', chinese, /EK09 \(mima\)/],
    ['a confirmation that defaults to yes', yesByDefault, /EK06 \(confirmed\)/],
  ])('throws on %s outside production', (_label, f, message) => {
    expect(() => defineTool({ name: 't', description: 'd', forms: { q: f }, run: () => done('x') })).toThrow(
      FormLintError,
    );
    expect(() => defineTool({ name: 't', description: 'd', forms: { q: f }, run: () => done('x') })).toThrow(message);
  });

  it('does not throw in production, but keeps the findings', () => {
    vi.stubEnv('NODE_ENV', 'production');
    const tool = defineTool({ name: 't', description: 'd', forms: { q: secret }, run: () => done('x') });
    expect(tool.findings.map((f) => f.rule)).toContain('EK09');
  });

  it('keeps warnings as findings without throwing', () => {
    const untitled = form({ env: field.select(['dev', 'prod']) });
    const tool = defineTool({ name: 't', description: 'd', forms: { env: untitled }, run: () => done('x') });
    expect(tool.findings.map((f) => f.rule)).toEqual(['EK07', 'EK07']);
  });

  it('accepts a clean form silently', () => {
    expect(defineTool({ name: 't', description: 'd', forms: { env: fine }, run: () => done('x') }).findings).toEqual(
      [],
    );
  });
});

describe('ask-time lint of forms and URLs built on the spot', () => {
  let c: Connected | undefined;
  afterEach(async () => {
    await c?.close();
    c = undefined;
  });

  it.each([
    ['a dynamic form asking for a token', { form: form({ token: field.string({ title: 'API token' }) }) }, 'EK09'],
    ['a URL with a token in its query', { url: 'https://example.com/cb?access_token=abc' }, 'EK14'],
    ['a plain-http remote URL', { url: 'http://example.com/set-password' }, 'EK14'],
  ])('refuses %s before anything is sent', async (_label, what, rule) => {
    const tool = defineTool({
      name: 'dynamic',
      description: 'asks something built at call time',
      async run(_args, { ask, askUrl }) {
        if ('form' in what) {
          const o = await ask('q', { message: 'Please provide the value for the integration.', form: what.form });
          return o.action === 'accept' ? done('ok') : o.result();
        }
        const o = await askUrl('q', {
          message: 'Open the page to continue the setup.',
          url: what.url,
          isComplete: () => true,
        });
        return o.action === 'accept' ? done('ok') : o.result();
      },
    });
    const kit = createElicitkit();
    c = await connect('memory-2025-11-25', () => kit.createServer({ name: 's', version: '1' }, [tool]));
    const r = await call(c, 'dynamic');
    expect(r.isError).toBe(true);
    expect(r.text).toContain(rule);
    expect(c.seen).toHaveLength(0);
  });
});

describe('outcome types', () => {
  it('only accept carries a value, and match demands every branch', () => {
    const handle = (o: Outcome<{ env: 'dev' | 'prod' }>) => {
      // @ts-expect-error the value is unreachable before ruling out the other outcomes
      o.value;
      if (o.action === 'accept') expectTypeOf(o.value.env).toEqualTypeOf<'dev' | 'prod'>();
      const incomplete = () =>
        // @ts-expect-error a missing branch does not compile
        match(o, { accept: () => 1, decline: () => 2, cancel: () => 3, unsupported: () => 4, invalid: () => 5 });
      void incomplete;
      return match(o, {
        accept: () => 1,
        decline: () => 2,
        cancel: () => 3,
        unsupported: () => 4,
        invalid: () => 5,
        timeout: () => 6,
      });
    };
    expect(handle({ action: 'accept', value: { env: 'dev' } })).toBe(1);
    expect(handle({ action: 'timeout', result: () => done('') })).toBe(6);
  });
});
