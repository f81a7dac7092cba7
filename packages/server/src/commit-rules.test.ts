/**
 * The rules around `ctx.commit`, enforced at run time like the ask rules: the effect comes after
 * the last question, once, never after a cancel; an atomic effect is synchronous.
 */
import { field, form } from '@elicitkit/form';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Connected, call, connect, type PathName } from '../test/harness.js';
import type { AuditEvent } from './audit.js';
import { createSqliteClaimStore } from './claims/sqlite.js';
import { createElicitkit, type ElicitkitOptions } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const pick = form({
  choice: field.select(
    [
      { value: 'a', title: 'A' },
      { value: 'b', title: 'B' },
    ],
    { title: 'Choice' },
  ),
});

const effects: string[] = [];

const tools = [
  defineTool({
    name: 'ask_after_commit',
    description: 'Acts, then asks (a bug on purpose).',
    forms: { first: pick, second: pick },
    async run(_args, ctx) {
      const first = await ctx.ask('first', { message: 'Pick the first value for this operation.' });
      if (first.action !== 'accept') return first.result();
      await ctx.commit(() => {
        effects.push('acted');
        return done('acted');
      });
      const second = await ctx.ask('second', { message: 'Pick the second value for this operation.' });
      return second.action === 'accept' ? done('asked after acting') : second.result();
    },
  }),
  defineTool({
    name: 'commit_twice',
    description: 'Commits two effects in one call (a bug on purpose).',
    forms: { first: pick },
    async run(_args, ctx) {
      const first = await ctx.ask('first', { message: 'Pick the first value for this operation.' });
      if (first.action !== 'accept') return first.result();
      await ctx.commit(() => done('one'));
      return ctx.commit(() => done('two'));
    },
  }),
  defineTool({
    name: 'commit_after_cancel',
    description: 'Acts after a cancel (a bug on purpose).',
    forms: { first: pick },
    async run(_args, ctx) {
      await ctx.ask('first', { message: 'Pick the first value for this operation.' });
      return ctx.commit(() => {
        effects.push('acted after cancel');
        return done('acted');
      });
    },
  }),
  defineTool({
    name: 'async_atomic',
    description: 'An async effect asked to commit in one transaction.',
    forms: { first: pick },
    async run(_args, ctx) {
      const first = await ctx.ask('first', { message: 'Pick the first value for this operation.' });
      if (first.action !== 'accept') return first.result();
      return ctx.commit(
        async () => {
          effects.push('async');
          return done('acted');
        },
        { atomic: true },
      );
    },
  }),
];

let open: Connected | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  effects.length = 0;
  await open?.close();
  open = undefined;
});

async function setup(path: PathName, script: Connected['script'], kit: ElicitkitOptions = {}) {
  const elicitkit = createElicitkit(kit);
  open = await connect(path, () => elicitkit.createServer({ name: 'rules', version: '1' }, tools), { script });
  return open;
}

const accept = { action: 'accept' as const, content: { choice: 'a' } };

describe.each(['memory-2025-11-25', 'http-2026-07-28'] as PathName[])('commit rules over %s', (path) => {
  it('a question after the effect is refused: it would be asked again, and acted on again, on a retry', async () => {
    const c = await setup(path, [accept, accept]);
    const r = await call(c, 'ask_after_commit');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('asked "second" after committing its side effect');
    expect(c.seen).toHaveLength(1);
  });

  it('a second effect in one call is refused', async () => {
    const c = await setup(path, [accept]);
    const r = await call(c, 'commit_twice');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('committed twice in one call');
  });

  it('an effect after the person cancelled never runs', async () => {
    const c = await setup(path, [{ action: 'cancel' }]);
    const r = await call(c, 'commit_after_cancel');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('tried to commit its side effect after the user cancelled "first"');
    expect(effects).toEqual([]);
  });
});

describe('in production', () => {
  it('an effect after a cancel still never runs: the call ends cancelled, and the audit keeps the violation', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    const events: AuditEvent[] = [];
    const c = await setup('memory-2025-11-25', [{ action: 'cancel' }], { audit: (e) => void events.push(e) });
    const r = await call(c, 'commit_after_cancel');
    expect(r.status).toBe('cancelled');
    expect(effects).toEqual([]);
    expect(events.filter((e) => e.type === 'violation')).toMatchObject([{ rule: 'EK05', key: 'first' }]);
  });
});

describe('atomic commits', () => {
  it('refuse an async effect with a store that can hold a transaction, before it runs', async () => {
    const c = await setup('http-2026-07-28', [accept], {
      claims: createSqliteClaimStore(new BetterSqlite3(':memory:')),
    });
    const r = await call(c, 'async_atomic');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('needs a synchronous effect');
    expect(effects).toEqual([]);
  });
});
