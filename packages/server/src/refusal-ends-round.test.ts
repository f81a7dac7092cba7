/**
 * 2026-07-28: a round that holds the person's decline or cancel, given in time, does not go on to
 * ask anything — not a question asked beside the refused one, not another the tool went to once
 * what it found had changed — and a tool failing over the refusal does not lose it. The call ends
 * with that no, recorded as its result, so the first round's state sent again answered yes acts on
 * nothing. Questions asked together are retraced together: a refusal of the first is no "ask after
 * a decline" for the second (as on 2025, where both go out before either is answered). Real SDK
 * clients, the SDK's handler, in-process fetch; 2025-11-25 on an in-memory pair.
 */
import { field, form } from '@elicitkit/form';
import { isInputRequiredResult } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { auditLog } from '../test/audit-log.js';
import { type Connected, call, connect } from '../test/harness.js';
import { roundsClient } from '../test/rounds.js';
import type { AuditSink } from './audit.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { type AnyTool, defineTool } from './tool.js';

const env = form({ env: field.select(['dev', 'prod'], { title: 'Environment' }) });
const confirm = form({ sure: field.boolean({ title: 'Go ahead?', default: false }) });
const notes = form({ text: field.string({ title: 'Release notes' }) });
const status = (r: unknown) => (r as { structuredContent?: { status?: string } }).structuredContent?.status;
const yes = { action: 'accept', content: { sure: true } } as const;
const prod = { action: 'accept', content: { env: 'prod' } } as const;

function rounds(tool: AnyTool, audit?: AuditSink) {
  const kit = createElicitkit({ identify: (ctx) => ctx.http?.authInfo?.clientId, ...(audit ? { audit } : {}) });
  return roundsClient(
    createMcpHandler(() => kit.createServer({ name: 'fixture', version: '1' }, [tool])),
    { tool: tool.name },
  );
}

/** Asks where and whether together; deploys only on both. */
function together(world: { deployed: number }) {
  return defineTool({
    name: 'deploy',
    description: 'Deploy order-service; asks where and whether, together.',
    inputSchema: z.object({}),
    forms: { env, confirm },
    async run(_args, ctx) {
      const [where, sure] = await Promise.all([
        ctx.ask('env', { message: 'Which environment should order-service go to?' }),
        ctx.ask('confirm', { message: 'Deploy order-service now?' }),
      ]);
      if (where.action !== 'accept') return where.result();
      if (sure.action !== 'accept') return sure.result();
      if (!sure.value.sure) return done('Not deployed.');
      return ctx.commit(() => {
        world.deployed++;
        return done(`Deployed to ${where.value.env}.`);
      });
    },
  });
}

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe('2026-07-28: a round holding the person’s no ends the call with it', () => {
  it.each([
    ['decline', 'declined'],
    ['cancel', 'cancelled'],
  ] as const)(
    'questions asked together, the first %sd, the other answered: that no, recorded',
    async (action, ended) => {
      const world = { deployed: 0 };
      const { client, round } = await rounds(together(world));
      const first = await round({});
      if (!isInputRequiredResult(first)) throw new Error('expected the two questions');
      expect(Object.keys(first.inputRequests ?? {}).sort()).toEqual(['confirm', 'env']);
      const refused = await round(
        {},
        {
          requestState: first.requestState,
          inputResponses: { env: { action }, confirm: { action: 'accept', content: { sure: false } } },
        },
      );
      // Their no, not a usage error for the question asked beside it.
      expect(refused).not.toMatchObject({ isError: true });
      expect(status(refused)).toBe(ended);
      const replayed = await round(
        {},
        { requestState: first.requestState, inputResponses: { env: prod, confirm: yes } },
      );
      expect(status(replayed)).toBe(ended);
      expect(world.deployed).toBe(0);
      await client.close();
    },
  );

  it('questions asked together, one declined and the other left unanswered: the call ends declined, asking nothing more', async () => {
    const world = { deployed: 0 };
    const { client, round } = await rounds(together(world));
    const first = await round({});
    if (!isInputRequiredResult(first)) throw new Error('expected the two questions');
    const refused = await round(
      {},
      { requestState: first.requestState, inputResponses: { confirm: { action: 'decline' } } },
    );
    expect(isInputRequiredResult(refused)).toBe(false);
    expect(status(refused)).toBe('declined');
    const replayed = await round({}, { requestState: first.requestState, inputResponses: { env: prod, confirm: yes } });
    expect(status(replayed)).toBe('declined');
    expect(world.deployed).toBe(0);
    await client.close();
  });

  it('what the tool finds changed, so it asks another question: the no to the first stands, audited as such', async () => {
    const world = { rows: 150, deleted: 0 };
    const purge = defineTool({
      name: 'purge',
      description: 'Deletes old orders; asks first, more carefully when there are many.',
      inputSchema: z.object({}),
      forms: { big: confirm, small: confirm },
      async run(_args, ctx) {
        const key = world.rows > 100 ? 'big' : 'small';
        const sure = await ctx.ask(key, { message: `Delete ${world.rows} old orders?` });
        if (sure.action !== 'accept') return sure.result();
        if (!sure.value.sure) return done('Nothing deleted.');
        return ctx.commit(() => {
          world.deleted += world.rows;
          return done(`Deleted ${world.rows} orders.`);
        });
      },
    });
    const audit = auditLog();
    const { client, round } = await rounds(purge, audit.sink);
    const first = await round({});
    if (!isInputRequiredResult(first)) throw new Error('expected the confirmation');
    world.rows = 50;
    const refused = await round(
      {},
      { requestState: first.requestState, inputResponses: { big: { action: 'decline' } } },
    );
    expect(isInputRequiredResult(refused)).toBe(false);
    expect(status(refused)).toBe('declined');
    expect(await audit.response('big')).toMatchObject({
      action: 'decline',
      detail: expect.stringContaining('another question'),
    });
    // Nothing was asked after the no: the only request on the trail is the first round's.
    expect(audit.events.filter((e) => e.type === 'request').map((e) => (e as { key: string }).key)).toEqual(['big']);
    world.rows = 150;
    const replayed = await round({}, { requestState: first.requestState, inputResponses: { big: yes } });
    expect(status(replayed)).toBe('declined');
    expect(world.deleted).toBe(0);
    await client.close();
  });

  it('a tool that asks after the person’s no fails (the error goes out), and their no is what the call ended with', async () => {
    const world = { deployed: 0 };
    const pushy = defineTool({
      name: 'deploy',
      description: 'Asks again after a decline (a mistake).',
      inputSchema: z.object({}),
      forms: { confirm, env },
      async run(_args, ctx) {
        const sure = await ctx.ask('confirm', { message: 'Deploy order-service now?' });
        if (sure.action !== 'accept') await ctx.ask('env', { message: 'Then where, at least?' });
        if (sure.action !== 'accept' || !sure.value.sure) return done('Not deployed.');
        return ctx.commit(() => {
          world.deployed++;
          return done('Deployed.');
        });
      },
    });
    const { client, round } = await rounds(pushy);
    const first = await round({});
    if (!isInputRequiredResult(first)) throw new Error('expected the confirmation');
    const failed = await round(
      {},
      { requestState: first.requestState, inputResponses: { confirm: { action: 'decline' } } },
    );
    expect(failed).toMatchObject({ isError: true });
    expect(JSON.stringify(failed)).toContain('after the user declined');
    const replayed = await round({}, { requestState: first.requestState, inputResponses: { confirm: yes } });
    expect(status(replayed)).toBe('declined');
    expect(world.deployed).toBe(0);
    await client.close();
  });

  it('a decline the tool takes and goes on from, asking nothing more, still lets it act (once)', async () => {
    const world = { deployed: 0, notes: [] as string[] };
    const tolerant = defineTool({
      name: 'deploy',
      description: 'Release notes are optional; the environment is not.',
      inputSchema: z.object({}),
      forms: { env, notes },
      async run(_args, ctx) {
        const [where, text] = await Promise.all([
          ctx.ask('env', { message: 'Which environment?' }),
          ctx.ask('notes', { message: 'Any release notes? (optional)' }),
        ]);
        if (where.action !== 'accept') return where.result();
        return ctx.commit(() => {
          world.deployed++;
          world.notes.push(text.action === 'accept' ? text.value.text : '(none)');
          return done(`Deployed to ${where.value.env}.`);
        });
      },
    });
    const { client, round } = await rounds(tolerant);
    const first = await round({});
    if (!isInputRequiredResult(first)) throw new Error('expected the two questions');
    const answers = { requestState: first.requestState, inputResponses: { notes: { action: 'decline' }, env: prod } };
    const deployed = await round({}, answers);
    expect(status(deployed)).toBe('done');
    expect(await round({}, answers)).toMatchObject({ structuredContent: { status: 'done' } });
    expect(world).toEqual({ deployed: 1, notes: ['(none)'] });
    await client.close();
  });
});

describe('2025-11-25: the same tool, questions pushed together', () => {
  it('a decline of the first ends the call declined, as on 2026-07-28', async () => {
    const world = { deployed: 0 };
    const kit = createElicitkit();
    open = await connect(
      'memory-2025-11-25',
      () => kit.createServer({ name: 'fixture', version: '1' }, [together(world)]),
      {
        script: [{ action: 'decline' }, yes],
      },
    );
    const result = await call(open, 'deploy', {});
    expect(result.status).toBe('declined');
    expect(world.deployed).toBe(0);
  });
});
