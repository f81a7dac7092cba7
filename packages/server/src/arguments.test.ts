import type { Issue } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { type Connected, type ConnectOptions, call, connect, type PathName } from '../test/harness.js';
import { parseArguments } from './arguments.js';
import type { AuditEvent } from './audit.js';
import { createElicitkit, type ElicitkitOptions } from './kit.js';

const PATHS: PathName[] = [
  'memory-2025-11-25',
  'memory-2025-06-18',
  'http-2026-07-28',
  'stdio-2025-11-25',
  'stdio-2026-07-28',
];
const REFUSED = 'The arguments of this call were not accepted, so nothing was asked and nothing was done:';

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function setup(path: PathName, options: ConnectOptions & { kit?: ElicitkitOptions } = {}) {
  const store = createStore();
  const events: AuditEvent[] = [];
  const kit = createElicitkit({ audit: (e) => void events.push(e), ...options.kit });
  const c = await connect(
    path,
    () => kit.createServer({ name: 'fixture', version: '1' }, fixtureTools(store)),
    options,
  );
  open = c;
  return { c, store, events };
}

describe.each(PATHS)('arguments the tool schema refuses, over %s', (path) => {
  const inProcess = !path.startsWith('stdio');

  it.each([
    ['a missing required argument', 'deploy', {}, 'service', /service: required, and not given/],
    ['a string over its maximum length', 'note', { text: 'x'.repeat(21) }, 'text', /text: .*<=20/],
    ['a value of the wrong type', 'note', { text: 'hi', copies: 'two' }, 'copies', /copies: .*expected number/],
    ['a fraction where a whole number is due', 'note', { text: 'hi', copies: 1.5 }, 'copies', /copies: /],
    ['an asynchronous rule of the schema', 'note', { text: 'forbidden' }, 'text', /text: this text is refused/],
  ])('%s: status invalid, the reasons, nothing asked or done', async (_label, tool, args, field, reason) => {
    const s = await setup(path);
    const r = await call(s.c, tool, args);
    expect(r.status, r.text).toBe('invalid');
    expect(r.isError).toBe(true);
    expect(r.text.split('\n')[0]).toBe(REFUSED);
    expect(r.text).toMatch(reason);
    const issues = r.structured?.issues as { field: string; message: string }[];
    expect(issues.map((i) => i.field)).toEqual([field]);
    expect(r.structured).not.toHaveProperty('question');
    expect(s.c.seen).toEqual([]);
    if (inProcess) {
      expect(s.store.deployments).toEqual([]);
      expect(s.events).toEqual([]);
    }
  });

  it('every reason at once, one per line', async () => {
    const s = await setup(path);
    const r = await call(s.c, 'note', { text: '', copies: 0 });
    expect(r.status).toBe('invalid');
    expect(((r.structured?.issues ?? []) as { field: string }[]).map((i) => i.field).sort()).toEqual([
      'copies',
      'text',
    ]);
    expect(r.text.split('\n')).toHaveLength(3);
  });

  it('accepted arguments reach the handler as the schema made them (defaults applied), on every round', async () => {
    const s = await setup(path, { script: [{ action: 'accept', content: { env: 'dev' } }] });
    const r = await call(s.c, 'note', { text: 'hello', unknown: 'dropped' });
    expect(r.status, r.text).toBe('done');
    expect(r.text).toBe('Filed 1 × hello for dev.');
    expect(r.structured).toMatchObject({ text: 'hello', copies: 1 });
  });

  it('tools/list still advertises the real input schema', async () => {
    const s = await setup(path);
    const { tools } = await s.c.client.listTools();
    const note = tools.find((t) => t.name === 'note');
    expect(note?.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 20, description: 'The note' },
        copies: { type: 'integer', minimum: 1, default: 1 },
      },
      required: ['text'],
    });
    expect(tools.find((t) => t.name === 'deploy')?.inputSchema).toMatchObject({ required: ['service'] });
  });
});

describe('refused arguments in the kit language', () => {
  it.each(['memory-2025-11-25', 'http-2026-07-28'] as PathName[])('zh, over %s', async (path) => {
    const s = await setup(path, { kit: { locale: 'zh' } });
    const r = await call(s.c, 'deploy', { env: 'dev' });
    expect(r.status).toBe('invalid');
    expect(r.text.split('\n')[0]).toBe('本次调用的参数未通过校验，没有提问，也没有执行任何操作：');
  });
});

describe('an argument not given at all', () => {
  const schema = z.object({ service: z.string(), target: z.object({ env: z.string() }), note: z.string().optional() });

  it('is named as required, in the call’s language, not in the schema library’s words', () => {
    const parsed = parseArguments(schema, { target: {} }) as { ok: false; issues: Issue[] };
    expect(parsed.issues).toEqual([
      { path: ['service'], code: 'required', message: 'service: required, and not given' },
      { path: ['target', 'env'], code: 'required', message: 'target.env: required, and not given' },
    ]);
    const zh = parseArguments(schema, { target: {} }, 'zh') as { ok: false; issues: Issue[] };
    expect(zh.issues[0]?.message).toBe('service：必填，但没有提供');
  });

  it('one given with the wrong type keeps the library’s reason', () => {
    const parsed = parseArguments(schema, { service: 7, target: 'dev' }) as { ok: false; issues: Issue[] };
    expect(parsed.issues.map((i) => i.code)).toEqual(['custom', 'custom']);
    expect(parsed.issues[0]?.message).toMatch(/^service: /);
    expect(parsed.issues[0]?.message).not.toContain('not given');
  });
});
