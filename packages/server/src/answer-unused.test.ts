/**
 * 2026-07-28: a round runs the tool again from the top, so what it finds may have changed since
 * the person answered. A tool that then heads for its side effect another way — no longer asking
 * the question they said yes to (150 rows to purge became 50, which it purges unasked) — would act
 * on an answer about something else: the effect does not run, the call ends `invalid`
 * (`answer_unused`) saying nothing was done, and the answer is on the trail as not counted. The
 * same tool asked again as it was, or called afresh, acts as before. Real SDK client, the SDK's
 * handler, in-process fetch.
 */
import { field, form } from '@elicitkit/form';
import { isInputRequiredResult } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { auditLog } from '../test/audit-log.js';
import { roundsClient } from '../test/rounds.js';
import type { AuditSink } from './audit.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { type AnyTool, defineTool } from './tool.js';

const confirm = form({ sure: field.boolean({ title: 'Purge them?', default: false }) });
const reason = form({ why: field.string({ title: 'Why purge them?' }) });
const yes = { action: 'accept', content: { sure: true } } as const;

function rounds(tool: AnyTool, audit?: AuditSink) {
  const kit = createElicitkit({ identify: (ctx) => ctx.http?.authInfo?.clientId, ...(audit ? { audit } : {}) });
  return roundsClient(
    createMcpHandler(() => kit.createServer({ name: 'fixture', version: '1' }, [tool])),
    {
      tool: tool.name,
    },
  );
}

/** Purges the stale rows: past 100 it asks first (and, with `why`, asks why before that). */
function purge(world: { rows: number; purged: number }, why = false) {
  return defineTool({
    name: 'purge',
    description: 'Purge the stale rows of the orders table.',
    inputSchema: z.object({}),
    forms: { confirm, reason },
    async run(_args, ctx) {
      if (why && world.rows > 100) {
        const given = await ctx.ask('reason', { message: `Why purge ${world.rows} stale orders?` });
        if (given.action !== 'accept') return given.result();
      }
      if (world.rows > 100) {
        const sure = await ctx.ask('confirm', { message: `Purge ${world.rows} stale orders?` });
        if (sure.action !== 'accept') return sure.result();
        if (!sure.value.sure) return done('Nothing purged.');
      }
      return ctx.commit(() => {
        world.purged += world.rows;
        return done(`Purged ${world.rows} orders.`);
      });
    },
  });
}

const structured = (r: unknown) => (r as { structuredContent?: Record<string, unknown> }).structuredContent;

describe('2026-07-28: an answer the tool, run again, no longer asks for stops its effect', () => {
  it('a yes to "purge 150?", the rows down to 50 by the answer round: nothing purged, said so, recorded', async () => {
    const world = { rows: 150, purged: 0 };
    const log = auditLog();
    const { client, round } = await rounds(purge(world), log.sink);
    const first = await round({});
    if (!isInputRequiredResult(first)) throw new Error('expected the question');
    world.rows = 50;
    const answered = await round({}, { requestState: first.requestState, inputResponses: { confirm: yes } });
    expect(world.purged).toBe(0);
    expect(structured(answered)).toMatchObject({ status: 'invalid', issues: [{ code: 'answer_unused' }] });
    expect(JSON.stringify(answered)).toContain('Nothing was done');
    expect(await log.response('confirm')).toMatchObject({
      action: 'accept',
      detail: expect.stringContaining('answer_unused'),
    });
    // The same round sent again finds the same: still nothing.
    await round({}, { requestState: first.requestState, inputResponses: { confirm: yes } });
    expect(world.purged).toBe(0);
    // A fresh call about things as they are now purges the 50, unasked.
    expect(structured(await round({}))).toMatchObject({ status: 'done' });
    expect(world.purged).toBe(50);
    await client.close();
  });

  it('an earlier round’s yes the tool no longer retraces, a later question answered: nothing purged', async () => {
    const world = { rows: 150, purged: 0 };
    const { client, round } = await rounds(purge(world, true));
    const first = await round({});
    if (!isInputRequiredResult(first)) throw new Error('expected the first question');
    const second = await round(
      {},
      { requestState: first.requestState, inputResponses: { reason: { action: 'accept', content: { why: 'stale' } } } },
    );
    if (!isInputRequiredResult(second)) throw new Error('expected the second question');
    world.rows = 50;
    const answered = await round({}, { requestState: second.requestState, inputResponses: { confirm: yes } });
    expect(structured(answered)).toMatchObject({ status: 'invalid', issues: [{ code: 'answer_unused' }] });
    expect(world.purged).toBe(0);
    await client.close();
  });

  it('the question asked again as it was: the yes counts and the effect runs, once', async () => {
    const world = { rows: 150, purged: 0 };
    const { client, round } = await rounds(purge(world));
    const first = await round({});
    if (!isInputRequiredResult(first)) throw new Error('expected the question');
    const answered = await round({}, { requestState: first.requestState, inputResponses: { confirm: yes } });
    expect(structured(answered)).toMatchObject({ status: 'done' });
    await round({}, { requestState: first.requestState, inputResponses: { confirm: yes } });
    expect(world.purged).toBe(150);
    await client.close();
  });
});
