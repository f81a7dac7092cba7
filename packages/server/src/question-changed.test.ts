/**
 * 2026-07-28 runs a call again from the top each round, so each round builds its questions again
 * from what is true now. An answer counts only for the question it answered: when a question a
 * key asks is no longer the one the person was shown (its message, its form or its URL changed
 * between rounds), the answer does not count and the question as it is now is asked instead.
 * Tested through the SDK's handler and client, the client retrying by hand.
 */
import { field, form } from '@elicitkit/form';
import { Client, isInputRequiredResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import type { AuditEvent } from './audit.js';
import { createCallStateCodec } from './call-state-codec.js';
import { createElicitkit } from './kit.js';
import { done, outcomeSchema } from './results.js';
import { defineTool } from './tool.js';

/** What the tools' questions show, changed by the tests between rounds. */
interface World {
  version: string;
  /** What the `hidden` tool's answer is about but its question does not show (a build's hash). */
  build: string;
  options: string[];
  url: string;
  acted: string[];
}

const confirm = form({ ok: field.boolean({ title: 'I confirm this release', default: false }) });

function tools(world: World) {
  const release = defineTool({
    name: 'release',
    description: 'Releases the current version after a confirmation.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ version: z.string() }),
    forms: { confirm },
    async run(_args, ctx) {
      const version = world.version; // read again every round, as a tool reads its database
      const answer = await ctx.ask('confirm', { message: `Release version ${version} to production?` });
      if (answer.action !== 'accept') return answer.result();
      world.acted.push(version);
      return done(`Released ${version}.`, { version });
    },
  });
  const choose = defineTool({
    name: 'choose',
    description: 'Picks one of the options that exist now.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ picked: z.string() }),
    async run(_args, ctx) {
      const options = form({
        picked: field.select(
          world.options.map((o) => ({ value: o, title: o.toUpperCase() })),
          { title: 'Option to pick' },
        ),
      });
      const answer = await ctx.ask('pick', { message: 'Which option should be picked?', form: options });
      if (answer.action !== 'accept') return answer.result();
      world.acted.push(String(answer.value.picked));
      return done(`Picked ${String(answer.value.picked)}.`, { picked: String(answer.value.picked) });
    },
  });
  const twoStep = defineTool({
    name: 'two_step',
    description: 'Confirms the release, then the environment.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ version: z.string() }),
    forms: {
      confirm,
      where: form({
        env: field.select(
          [
            { value: 'dev', title: 'Development' },
            { value: 'prod', title: 'Production' },
          ],
          { title: 'Environment' },
        ),
      }),
    },
    async run(_args, ctx) {
      const version = world.version;
      const ok = await ctx.ask('confirm', { message: `Release version ${version}?` });
      if (ok.action !== 'accept') return ok.result();
      const where = await ctx.ask('where', { message: 'Where should the release go?' });
      if (where.action !== 'accept') return where.result();
      world.acted.push(`${version}@${where.value.env}`);
      return done(`Released ${version} to ${where.value.env}.`, { version });
    },
  });
  const page = defineTool({
    name: 'page',
    description: 'Sends the person to a page.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({}),
    async run(_args, ctx) {
      const url = world.url;
      const answer = await ctx.askUrl('page', { message: 'Finish on the page, please.', url, isComplete: () => true });
      if (answer.action !== 'accept') return answer.result();
      world.acted.push(url);
      return done('Finished on the page.', {});
    },
  });
  const hidden = defineTool({
    name: 'hidden',
    description: 'Ships the current build after a confirmation that does not show its hash.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ build: z.string() }),
    forms: { confirm },
    async run(_args, ctx) {
      const build = world.build;
      const answer = await ctx.ask('confirm', { message: 'Ship the current build?', about: build });
      if (answer.action !== 'accept') return answer.result();
      const page = await ctx.askUrl('page', {
        message: 'Sign the release.',
        url: world.url,
        isComplete: () => true,
        about: build,
      });
      if (page.action !== 'accept') return page.result();
      world.acted.push(build);
      return done(`Shipped ${build}.`, { build });
    },
  });
  return [release, choose, twoStep, page, hidden];
}

function setup(options: { now?: () => number; secret?: string } = {}) {
  const world: World = { version: 'v1', build: 'b1', options: ['a', 'b'], url: 'https://pages.example/one', acted: [] };
  const audit: AuditEvent[] = [];
  const kit = createElicitkit({
    identify: (ctx) => ctx.http?.authInfo?.clientId,
    audit: (e) => {
      audit.push(e);
    },
    ...(options.now ? { now: options.now } : {}),
    ...(options.secret ? { secret: options.secret } : {}),
  });
  const handler = createMcpHandler(() => kit.createServer({ name: 'changing', version: '1' }, tools(world)));
  return { world, audit, handler };
}

async function manualClient(handler: ReturnType<typeof createMcpHandler>) {
  const client = new Client(
    { name: 'manual', version: '1' },
    {
      capabilities: { elicitation: { form: {}, url: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
      fetch: (url, init) =>
        handler.fetch(new Request(url, init), { authInfo: { token: 'alice', clientId: 'alice', scopes: [] } }),
    }),
  );
  const round = (name: string, extra: Record<string, unknown> = {}) =>
    client.request({ method: 'tools/call', params: { name, arguments: {}, ...extra } }, { allowInputRequired: true });
  return { client, round };
}

type Round = Awaited<ReturnType<Awaited<ReturnType<typeof manualClient>>['round']>>;

function pending(round: Round): {
  requestState: string;
  messages: Record<string, string>;
  raw: Record<string, unknown>;
} {
  if (!isInputRequiredResult(round)) throw new Error(`expected input_required, got ${JSON.stringify(round)}`);
  const raw = (round.inputRequests ?? {}) as Record<string, { params?: { message?: string } }>;
  return {
    requestState: String(round.requestState),
    messages: Object.fromEntries(Object.entries(raw).map(([k, r]) => [k, String(r.params?.message)])),
    raw,
  };
}

const accept = (content?: Record<string, unknown>) => ({ action: 'accept', ...(content ? { content } : {}) });

describe('2026-07-28: an answer counts only for the question it answered', () => {
  it('a message changed between rounds: the answer does not count, the new question is asked, then answered', async () => {
    const { world, audit, handler } = setup();
    const alice = await manualClient(handler);
    const first = pending(await alice.round('release'));
    expect(first.messages.confirm).toBe('Release version v1 to production?');

    world.version = 'v2';
    const second = pending(
      await alice.round('release', {
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: first.requestState,
      }),
    );
    expect(world.acted).toEqual([]);
    expect(second.messages).toEqual({ confirm: 'Release version v2 to production?' });

    const third = await alice.round('release', {
      inputResponses: { confirm: accept({ ok: true }) },
      requestState: second.requestState,
    });
    expect(third).toMatchObject({ structuredContent: { status: 'done', version: 'v2' } });
    expect(world.acted).toEqual(['v2']);

    // Both questions and both answers are in the trail; the first answer says why it did not count.
    const trail = audit.filter((e) => e.type === 'request' || e.type === 'response');
    expect(trail.map((e) => [e.type, e.type === 'request' ? e.message : (e as { detail?: string }).detail])).toEqual([
      ['request', 'Release version v1 to production?'],
      ['response', expect.stringContaining('the question changed before this answer arrived')],
      ['request', 'Release version v2 to production?'],
      ['response', undefined],
    ]);
    await alice.client.close();
  });

  it('`about` changed between rounds, the question shown the same: the answer does not count, the question is asked again', async () => {
    const { world, audit, handler } = setup();
    const alice = await manualClient(handler);
    const first = pending(await alice.round('hidden'));
    expect(first.messages).toEqual({ confirm: 'Ship the current build?' });
    // `about` is the question's identity, never sent.
    expect(JSON.stringify(first.raw)).not.toContain('b1');

    world.build = 'b2';
    const second = pending(
      await alice.round('hidden', {
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: first.requestState,
      }),
    );
    expect(world.acted).toEqual([]);
    expect(second.messages).toEqual({ confirm: 'Ship the current build?' });
    const response = audit.find((e) => e.type === 'response') as { detail?: string } | undefined;
    expect(response?.detail).toContain('the question changed before this answer arrived');

    // Confirmed again about b2; the page is asked about b2 too. Then b3 appears: the page's consent was to b2.
    const third = pending(
      await alice.round('hidden', {
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: second.requestState,
      }),
    );
    expect(Object.keys(third.messages)).toEqual(['page']);
    world.build = 'b3';
    const fourth = pending(
      await alice.round('hidden', { inputResponses: { page: accept() }, requestState: third.requestState }),
    );
    expect(Object.keys(fourth.messages)).toEqual(['confirm']);
    expect(world.acted).toEqual([]);
    await alice.client.close();
  });

  it('`about` the same in every round: the answers count', async () => {
    const { world, handler } = setup();
    const alice = await manualClient(handler);
    const first = pending(await alice.round('hidden'));
    const second = pending(
      await alice.round('hidden', {
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: first.requestState,
      }),
    );
    expect(Object.keys(second.messages)).toEqual(['page']);
    const third = await alice.round('hidden', {
      inputResponses: { page: accept() },
      requestState: second.requestState,
    });
    expect(third).toMatchObject({ structuredContent: { status: 'done', build: 'b1' } });
    expect(world.acted).toEqual(['b1']);
    await alice.client.close();
  });

  it('the same message and form in the next round: the answer counts (the state carries the question digest)', async () => {
    const { world, handler } = setup();
    const alice = await manualClient(handler);
    const first = pending(await alice.round('release'));
    const body = JSON.parse(first.requestState.slice(3, first.requestState.lastIndexOf('.'))) as unknown[];
    // [call, cid, exp, [key, asked, timeoutMs, 0, 0, 0, digest]]
    expect(body[3]).toEqual(['confirm', expect.any(Number), 600_000, 0, 0, 0, expect.stringMatching(/^[\w-]{16}$/)]);
    const done = await alice.round('release', {
      inputResponses: { confirm: accept({ ok: true }) },
      requestState: first.requestState,
    });
    expect(done).toMatchObject({ structuredContent: { status: 'done', version: 'v1' } });
    expect(world.acted).toEqual(['v1']);
    await alice.client.close();
  });

  it('a form changed between rounds (an option removed and another added): asked again with the new form', async () => {
    const { world, handler } = setup();
    const alice = await manualClient(handler);
    const first = pending(await alice.round('choose'));
    world.options = ['a', 'c'];
    const second = pending(
      await alice.round('choose', {
        inputResponses: { pick: accept({ picked: 'a' }) },
        requestState: first.requestState,
      }),
    );
    expect(world.acted).toEqual([]);
    expect(JSON.stringify(second.raw.pick)).toContain('"C"');
    await alice.client.close();
  });

  it('an answer from an earlier round whose question has changed since is asked again too', async () => {
    const { world, audit, handler } = setup();
    const alice = await manualClient(handler);
    const first = pending(await alice.round('two_step'));
    const second = pending(
      await alice.round('two_step', {
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: first.requestState,
      }),
    );
    expect(Object.keys(second.messages)).toEqual(['where']);
    // The confirmation was for v1; before the person picks the environment, v2 is what would go out.
    world.version = 'v2';
    const third = pending(
      await alice.round('two_step', {
        inputResponses: { where: accept({ env: 'prod' }) },
        requestState: second.requestState,
      }),
    );
    expect(world.acted).toEqual([]);
    expect(third.messages).toEqual({ confirm: 'Release version v2?' });
    const fourth = await alice.round('two_step', {
      inputResponses: { confirm: accept({ ok: true }) },
      requestState: third.requestState,
    });
    // The environment question did not change, so its answer still counts.
    expect(fourth).toMatchObject({ structuredContent: { status: 'done', version: 'v2' } });
    expect(world.acted).toEqual(['v2@prod']);
    // The earlier answer was recorded in its own round; no second record of it.
    expect(audit.filter((e) => e.type === 'response' && e.key === 'confirm')).toHaveLength(2);
    await alice.client.close();
  });

  it('a URL changed between rounds: consent to one page is not consent to another', async () => {
    const { world, handler } = setup();
    const alice = await manualClient(handler);
    const first = pending(await alice.round('page'));
    world.url = 'https://elsewhere.example/two';
    const second = pending(
      await alice.round('page', { inputResponses: { page: accept() }, requestState: first.requestState }),
    );
    expect(world.acted).toEqual([]);
    expect(JSON.stringify(second.raw.page)).toContain('https://elsewhere.example/two');
    await alice.client.close();
  });

  it('a late answer stays a timeout, even when the question changed meanwhile', async () => {
    let clock = Date.now();
    const { world, handler } = setup({ now: () => clock });
    const alice = await manualClient(handler);
    const first = pending(await alice.round('release'));
    clock += 600_001;
    world.version = 'v2';
    const late = await alice.round('release', {
      inputResponses: { confirm: accept({ ok: true }) },
      requestState: first.requestState,
    });
    expect(late).toMatchObject({ structuredContent: { status: 'timeout' } });
    expect(world.acted).toEqual([]);
    await alice.client.close();
  });

  it('a state sealed before question digests were kept still has its answers counted', async () => {
    const secret = 'a kept state secret of at least 32 characters';
    const { world, handler } = setup({ secret });
    const alice = await manualClient(handler);
    const first = pending(await alice.round('release'));
    // The same state as an earlier version sealed it: no digest after the timeout.
    const codec = createCallStateCodec({ key: secret, ttlSeconds: 3600, now: Date.now });
    const caller = { method: 'tools/call', identity: 'alice', server: 'changing' };
    const opened = await codec.open(first.requestState, caller);
    for (const record of Object.values(opened.asks)) delete record.question;
    const old = await codec.seal(opened, caller);
    expect(JSON.parse(old.slice(3, old.lastIndexOf('.')))[3]).toHaveLength(3);
    world.version = 'v2';
    const done = await alice.round('release', { inputResponses: { confirm: accept({ ok: true }) }, requestState: old });
    expect(done).toMatchObject({ structuredContent: { status: 'done' } });
    await alice.client.close();
  });
});
