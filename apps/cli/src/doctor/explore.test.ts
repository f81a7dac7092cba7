/**
 * Doctor's tree walk over answers, against a server of this test's own (the raw SDK over HTTP on
 * loopback): questions that only follow one answer — an option of a select, a boolean set to
 * true — are reached, and whatever the limits left untried is named.
 */
import { type CallToolResult, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { host } from '../../test/broken-servers.js';
import { doctorJson } from '../../test/doctor-harness.js';
import { main } from '../main.js';
import type { DoctorReport } from './report.js';

type Answer = { action: string; content?: Record<string, unknown> };

const result = (status: string, text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent: { status },
  ...(status === 'done' || status === 'declined' || status === 'cancelled' ? {} : { isError: true }),
});

/** Nothing done after a decline, cancel or refused answer, and why, typed. */
function ended(answer: Answer): CallToolResult {
  if (answer.action === 'decline') return result('declined', 'Nothing was done: you declined.');
  if (answer.action === 'cancel') return result('cancelled', 'Nothing was done: you cancelled.');
  return result('invalid', 'Nothing was done: the answer was not usable.');
}

const select = (title: string, options: [string, string][]) => ({
  type: 'string',
  title,
  oneOf: options.map(([value, label]) => ({ const: value, title: label })),
});
const form = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({
  type: 'object',
  properties,
  required,
});

/** A server with three well-behaved tools whose later questions hide behind particular answers. */
function branchingServer(): McpServer {
  const server = new McpServer({ name: 'branching', version: '1.0.0' }, { capabilities: { tools: {} } });
  // Forms need the form mode: a bare `elicitation: {}` (2025-06-18) means it, `{url: {}}` alone does not.
  const canAsk = () => {
    const e = server.server.getClientCapabilities()?.elicitation as { form?: object; url?: object } | undefined;
    return e !== undefined && (e.form !== undefined || e.url === undefined);
  };
  const ask = async (ctx: ServerContext, message: string, requestedSchema: object): Promise<Answer> =>
    (await ctx.mcpReq.send({ method: 'elicitation/create', params: { message, requestedSchema } })) as Answer;
  const accepted = (a: Answer, field: string) => a.action === 'accept' && a.content?.[field] !== undefined;

  // select → only for prod a boolean → only for true a third question.
  server.registerTool(
    'plan_rollout',
    {
      description: 'Plans the rollout of order-service.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
    },
    (async (_args: unknown, ctx: ServerContext) => {
      if (!canAsk()) return result('unsupported', 'Pass env (dev, staging or prod), notify and channel.');
      const env = await ask(
        ctx,
        'Which environment should the rollout of order-service be planned for?',
        form({
          env: select('Environment', [
            ['dev', 'Development'],
            ['staging', 'Staging'],
            ['prod', 'Production'],
          ]),
        }),
      );
      if (!accepted(env, 'env')) return ended(env);
      if (env.content?.env !== 'prod') return result('done', `Planned for ${String(env.content?.env)}.`);
      const notify = await ask(
        ctx,
        'Should the on-call team hear about the production rollout of order-service?',
        form({ notify: { type: 'boolean', title: 'Tell the on-call team', default: false } }),
      );
      if (!accepted(notify, 'notify')) return ended(notify);
      if (notify.content?.notify !== true) return result('done', 'Planned for production, quietly.');
      const channel = await ask(
        ctx,
        'Where should the on-call team hear about the production rollout of order-service?',
        form({
          channel: select('Channel', [
            ['chat', 'Team chat'],
            ['pager', 'Pager'],
          ]),
        }),
      );
      if (!accepted(channel, 'channel')) return ended(channel);
      return result('done', `Planned for production; on-call told by ${String(channel.content?.channel)}.`);
    }) as never,
  );

  // The example: the confirmation and ticket are asked for production only.
  server.registerTool(
    'deploy_gated',
    { description: 'Deploys order-service.', inputSchema: z.object({}), annotations: { destructiveHint: true } },
    (async (_args: unknown, ctx: ServerContext) => {
      if (!canAsk()) return result('unsupported', 'Pass env (dev or prod); prod also needs confirmed and ticket.');
      const env = await ask(
        ctx,
        'Which environment should order-service be deployed to?',
        form({
          env: select('Environment', [
            ['dev', 'Development'],
            ['prod', 'Production'],
          ]),
        }),
      );
      if (!accepted(env, 'env')) return ended(env);
      if (env.content?.env !== 'prod') return result('done', 'Deployed to development.');
      const gate = await ask(
        ctx,
        'Deploy order-service to PRODUCTION? Tick to confirm, and give the approved release ticket.',
        form(
          {
            confirmed: { type: 'boolean', title: 'I confirm the production deploy', default: false },
            ticket: { type: 'string', title: 'Release ticket', minLength: 4 },
          },
          ['ticket'],
        ),
      );
      if (gate.action !== 'accept') return ended(gate);
      if (gate.content?.confirmed !== true) return result('declined', 'Not deployed: the deploy was not confirmed.');
      // Approval lives in the system: only REL-1001 is approved.
      if (gate.content?.ticket !== 'REL-1001') return result('invalid', 'Not deployed: that ticket is not approved.');
      return result('done', 'Deployed to production.');
    }) as never,
  );

  // A retry: a ticket the server does not know is asked for once more, then refused.
  server.registerTool(
    'restart_service',
    { description: 'Restarts order-service.', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
    (async (_args: unknown, ctx: ServerContext) => {
      if (!canAsk()) return result('unsupported', 'Pass ticket: the change ticket of the restart.');
      const schema = form({ ticket: { type: 'string', title: 'Change ticket', minLength: 4 } });
      let answer = await ask(ctx, 'Which change ticket covers the restart of order-service?', schema);
      for (let tries = 1; accepted(answer, 'ticket') && answer.content?.ticket !== 'CHG-1'; tries++) {
        if (tries === 2) return result('invalid', 'Not restarted: no such change ticket.');
        answer = await ask(
          ctx,
          'That change ticket was not found. Which change ticket covers the restart of order-service?',
          schema,
        );
      }
      return accepted(answer, 'ticket') ? result('done', 'Restarted.') : ended(answer);
    }) as never,
  );
  return server;
}

let url = '';
let close = async () => {};
beforeAll(async () => {
  const served = await host(branchingServer);
  url = served.url;
  close = served.close;
});
afterAll(() => close());

/** doctor on one tool of the branching server, 2025-11-25 clients only (three profiles, two that can be asked). */
const doctorOn = (tool: string, ...extra: string[]) =>
  doctorJson([url, '--revision', '2025-11-25', '--tools', tool, '--yes', ...extra]);

const toolOf = (report: DoctorReport, name: string) => report.tools.find((t) => t.name === name);
const questionsOf = (report: DoctorReport) => report.tools.flatMap((t) => t.questions);
const untried = (report: DoctorReport) =>
  report.coverage.untried.map((u) => `${u.question} ${u.label}: ${u.reason} (${u.profiles.length})`);
const FORM_PROFILES = ['2025-11-25 form+url', '2025-11-25 form'];

describe('doctor walks the tree of answers', () => {
  it('reaches a question three answers deep (select → boolean → select) and tries every branch on the way', async () => {
    const { report, code } = await doctorOn('plan_rollout');
    // Three questions in one call, only behind env=prod and notify=true: found by the walk alone.
    expect(report.findings.map((f) => [f.rule, f.severity, f.strategy, f.message])).toEqual([
      ['EK08', 'warning', 'explore', 'asked 3 questions in one call'],
    ]);
    expect(code).toBe(0);
    expect(questionsOf(report).map((q) => [q.key, q.depth, q.reached.map((r) => r.profile)])).toEqual([
      ['form: env', 1, FORM_PROFILES],
      ['form: notify', 2, FORM_PROFILES],
      ['form: channel', 3, FORM_PROFILES],
    ]);
    const channel = questionsOf(report)[2];
    expect(channel?.branches.map((b) => [b.label, b.tried, b.outcomes])).toEqual([
      ['channel=chat', FORM_PROFILES, ['done']],
      ['channel=pager', FORM_PROFILES, ['done']],
      ['decline', FORM_PROFILES, ['declined']],
      ['cancel', FORM_PROFILES, ['cancelled']],
    ]);
    const paths = toolOf(report, 'plan_rollout')
      ?.calls.filter((c) => c.profile === '2025-11-25 form')
      .map((c) => c.path);
    expect(paths).toEqual([
      null,
      null,
      null,
      null,
      ['env=staging'],
      ['env=prod'],
      ['env=prod', 'notify=true'],
      ['env=prod', 'decline'],
      ['env=prod', 'cancel'],
      ['env=prod', 'notify=true', 'channel=pager'],
      ['env=prod', 'notify=true', 'decline'],
      ['env=prod', 'notify=true', 'cancel'],
    ]);
    expect(report.exploration).toEqual({ depth: 3, budget: 20, calls: 16 });
    expect(report.coverage).toMatchObject({ questions: 3, fullyReached: 3, untried: [] });
    expect(report.coverage.branches).toEqual({ seen: 13, tried: 13, pairs: { tried: 26, applicable: 26 } });
  });

  it('with --depth 2 reaches the third question but names its branches as not tried, in JSON and in text', async () => {
    const { report } = await doctorOn('plan_rollout', '--depth', '2');
    expect(questionsOf(report).map((q) => q.key)).toEqual(['form: env', 'form: notify', 'form: channel']);
    expect(untried(report)).toEqual([
      'form: channel channel=pager: depth (2)',
      'form: channel decline: depth (2)',
      'form: channel cancel: depth (2)',
    ]);
    expect(report.coverage.untried[0]).toMatchObject({
      tool: 'plan_rollout',
      field: 'channel',
      value: 'pager',
      answer: 'accept',
      detail: 'question 3 of its call, deeper than --depth 2',
    });
    expect(report.coverage.fullyReached).toBe(2);
    const out: string[] = [];
    await main(['doctor', url, '--revision', '2025-11-25', '--tools', 'plan_rollout', '--yes', '--depth', '2'], {
      out: (s) => out.push(s),
      err: () => {},
    });
    const text = out.join('\n');
    expect(text).toContain(
      'not tried channel=pager under every profile that reached it: question 3 of its call, deeper than --depth 2',
    );
    expect(text).toContain('2 of 3 questions reached under every profile that can show them, with every branch tried');
    expect(text).toContain('Not tried: 3 branches');
  });

  it('with --depth 1 never sees the third question, and says which answer it did not try', async () => {
    const { report } = await doctorOn('plan_rollout', '--depth', '1');
    expect(questionsOf(report).map((q) => q.key)).toEqual(['form: env', 'form: notify']);
    expect(untried(report)).toEqual([
      'form: notify notify=true: depth (2)',
      'form: notify decline: depth (2)',
      'form: notify cancel: depth (2)',
    ]);
    expect(report.coverage).toMatchObject({ questions: 2, fullyReached: 1 });
  });

  it('with --budget 2 stops after two exploring calls per profile and names the branches it had queued', async () => {
    const { report } = await doctorOn('plan_rollout', '--budget', '2');
    expect(report.exploration).toEqual({ depth: 3, budget: 2, calls: 4 });
    expect(questionsOf(report).map((q) => q.key)).toEqual(['form: env', 'form: notify']);
    expect(untried(report)).toEqual([
      'form: notify notify=true: budget (2)',
      'form: notify decline: budget (2)',
      'form: notify cancel: budget (2)',
    ]);
    expect(report.coverage.untried[0]?.detail).toBe(
      "the tool's 2 exploring calls under this profile were spent first (--budget)",
    );
  });
});

describe('the old fault: a question behind one option', () => {
  it('without exploring (--budget 0) one question of two is seen, and it is not called fully reached', async () => {
    const { report } = await doctorOn('deploy_gated', '--allow-destructive', '--budget', '0');
    expect(report.coverage).toMatchObject({ questions: 1, fullyReached: 0 });
    expect(untried(report)).toEqual(['form: env env=prod: budget (2)']);
  });

  it('exploring reaches the production-only confirmation and tries it both ways', async () => {
    const { report } = await doctorOn('deploy_gated', '--allow-destructive');
    expect(questionsOf(report).map((q) => [q.key, q.reached.length])).toEqual([
      ['form: env', 2],
      ['form: confirmed, ticket', 2],
    ]);
    const gate = questionsOf(report)[1];
    expect(gate?.branches.map((b) => [b.label, b.tried.length, b.outcomes])).toEqual([
      ['confirmed=false', 2, ['declined']],
      ['confirmed=true', 2, ['invalid']],
      ['decline', 2, ['declined']],
      ['cancel', 2, ['cancelled']],
    ]);
    expect(report.coverage).toMatchObject({ questions: 2, fullyReached: 2, untried: [] });
    expect(report.findings).toEqual([]);
  });

  it('without --allow-destructive the walk accepts nothing there, and says so', async () => {
    const { report } = await doctorOn('deploy_gated');
    expect(report.exploration.calls).toBe(0);
    expect(questionsOf(report).map((q) => q.key)).toEqual(['form: env']);
    expect(untried(report)).toEqual(['form: env env=dev: destructive (2)', 'form: env env=prod: destructive (2)']);
    expect(report.coverage.fullyReached).toBe(0);
  });
});

describe('a retry after a refused answer', () => {
  it('is answered, reached and explored: the server asking the same question again after an accept', async () => {
    const { report } = await doctorOn('restart_service');
    const [ticket] = questionsOf(report);
    expect(ticket?.retried).toBe(true);
    const calls = toolOf(report, 'restart_service')?.calls.filter((c) => c.profile === '2025-11-25 form') ?? [];
    expect(calls.map((c) => [c.strategy, c.answers.join(', '), c.outcome])).toEqual([
      ['accept-defaults', 'accept, accept', 'invalid'],
      ['accept-empty', 'accept', 'invalid'],
      ['decline', 'decline', 'declined'],
      ['cancel', 'cancel', 'cancelled'],
      ['explore', 'accept, decline (explore)', 'declined'],
      ['explore', 'accept, cancel (explore)', 'cancelled'],
    ]);
    expect(report.findings).toEqual([]);
  });
});
