/**
 * On 2026-07-28 a client may send any round of a call again (a state is authentic, not single-use).
 * Once the person has declined or cancelled, the call is over: a round sent again — one sealed
 * before they answered, with or without an answer to it — gets their no, the tool not run again.
 * Was: the earlier round asked again (EK12: re-asking after a decline), and a tool that gives
 * something out while asking (opsdesk's password page link, withdrawn on the decline) gave it out
 * once more. A tool that goes on after a decline to what it can do without the answer is not
 * ended by it. Real SDK clients, the SDK’s handler.
 */

import { field, form } from '@elicitkit/form';
import { isInputRequiredResult } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { roundsClient } from '../test/rounds.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const env = form({ env: field.select(['dev', 'prod'], { title: 'Environment' }) });
const confirm = form({ sure: field.boolean({ title: 'Deploy now?', default: false }) });

/** Asks for an environment, then a confirmation; counts its runs and what it gave out while asking. */
function counted() {
  const seen = { runs: 0, confirmsShown: 0, deployed: 0 };
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy order-service; asks where, then whether.',
    inputSchema: z.object({}),
    forms: { env, confirm },
    async run(_args, ctx) {
      seen.runs++;
      const where = await ctx.ask('env', { message: 'Which environment should order-service go to?' });
      if (where.action !== 'accept') return where.result();
      seen.confirmsShown++;
      const sure = await ctx.ask('confirm', { message: `Deploy order-service to ${where.value.env} now?` });
      if (sure.action !== 'accept') return sure.result();
      return ctx.commit(() => {
        seen.deployed++;
        return done(`Deployed to ${where.value.env}.`);
      });
    },
  });
  /** Asks for a ticket; declined, it deploys without one (what it can do without the answer). */
  const optional = defineTool({
    name: 'optional',
    description: 'Deploy order-service, with a release ticket if the person gives one.',
    inputSchema: z.object({}),
    forms: { ticket: form({ ticket: field.string({ title: 'Ticket' }) }) },
    async run(_args, ctx) {
      seen.runs++;
      const ticket = await ctx.ask('ticket', { message: 'Which release ticket covers this deployment?' });
      return ctx.commit(() => {
        seen.deployed++;
        return done(
          ticket.action === 'accept' ? `Deployed with ${ticket.value.ticket}.` : 'Deployed without a ticket.',
        );
      });
    },
  });
  const kit = createElicitkit({ identify: (ctx) => ctx.http?.authInfo?.clientId });
  const handler = createMcpHandler(() => kit.createServer({ name: 'fixture', version: '1' }, [deploy, optional]));
  return { handler, seen };
}

const status = (r: unknown) => (r as { structuredContent?: { status?: string } }).structuredContent?.status;

describe('the person’s no ends a 2026-07-28 call for good', () => {
  it.each(['decline', 'cancel'] as const)('after a %s, every earlier round sent again gets it', async (action) => {
    const { handler, seen } = counted();
    const { client, round } = await roundsClient(handler, { tool: 'deploy' });
    const first = await round({});
    if (!isInputRequiredResult(first)) throw new Error('expected the environment question');
    const second = await round(
      {},
      { requestState: first.requestState, inputResponses: { env: { action: 'accept', content: { env: 'prod' } } } },
    );
    if (!isInputRequiredResult(second)) throw new Error('expected the confirmation');
    const refused = await round({}, { requestState: second.requestState, inputResponses: { confirm: { action } } });
    const ended = action === 'decline' ? 'declined' : 'cancelled';
    expect(status(refused)).toBe(ended);
    const before = { ...seen };

    // The round that carried the environment, sent again; the first round's state with no answer;
    // the refusing round itself; the confirmation's state answered yes after all.
    for (const extra of [
      { requestState: first.requestState, inputResponses: { env: { action: 'accept', content: { env: 'prod' } } } },
      { requestState: first.requestState },
      { requestState: second.requestState, inputResponses: { confirm: { action } } },
      { requestState: second.requestState, inputResponses: { confirm: { action: 'accept', content: { sure: true } } } },
    ]) {
      const again = await round({}, extra);
      expect(isInputRequiredResult(again)).toBe(false);
      expect(again).toEqual(refused);
    }
    expect(seen).toEqual(before);
    expect(seen.deployed).toBe(0);
    // A new call is a new call: asked from the start.
    expect(isInputRequiredResult(await round({}))).toBe(true);
    await client.close();
  });

  it('a tool that goes on after a decline to what it can do without the answer is not ended by it', async () => {
    const { handler, seen } = counted();
    const { client, round } = await roundsClient(handler, { tool: 'optional' });
    const first = await round({});
    if (!isInputRequiredResult(first)) throw new Error('expected the ticket question');
    const declined = await round(
      {},
      { requestState: first.requestState, inputResponses: { ticket: { action: 'decline' } } },
    );
    expect(declined).toMatchObject({ structuredContent: { status: 'done' } });
    // Sent again, its committed result: the same, done once.
    const again = await round(
      {},
      { requestState: first.requestState, inputResponses: { ticket: { action: 'decline' } } },
    );
    expect(again).toEqual(declined);
    expect(seen.deployed).toBe(1);
    await client.close();
  });
});
