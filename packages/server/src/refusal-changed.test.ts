/**
 * On 2026-07-28 a question built again differently (the version to release moved on) sets aside an
 * accept given to what it was: consent was to that wording. A decline or a cancel is not consent to
 * a wording: it stands, and the call ends as refused; nothing is asked again (EK05, EK12). Real SDK
 * client, the SDK's handler, in-process fetch.
 */
import { field, form } from '@elicitkit/form';
import { isInputRequiredResult } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { roundsClient } from '../test/rounds.js';
import { createElicitkit } from './kit.js';
import { done, outcomeSchema } from './results.js';
import { defineTool } from './tool.js';

const confirm = form({ ok: field.boolean({ title: 'I confirm this release', default: false }) });

function setup() {
  const world = { version: 'v1', acted: [] as string[] };
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
      return ctx.commit(() => {
        world.acted.push(version);
        return done(`Released ${version}.`, { version });
      });
    },
  });
  const kit = createElicitkit({ identify: (ctx) => ctx.http?.authInfo?.clientId });
  const handler = createMcpHandler(() => kit.createServer({ name: 'changing', version: '1' }, [release]));
  return { world, handler };
}

async function manualClient(handler: ReturnType<typeof createMcpHandler>) {
  const { client, round } = await roundsClient(handler, { tool: 'release' });
  return { client, round: (extra: Record<string, unknown> = {}) => round({}, extra) };
}

describe('a refusal of a question that changed since still ends the call', () => {
  for (const [action, status] of [
    ['cancel', 'cancelled'],
    ['decline', 'declined'],
  ] as const) {
    it(`${action}: the call ends ${status}, nothing is asked again`, async () => {
      const { world, handler } = setup();
      const alice = await manualClient(handler);
      const first = await alice.round();
      if (!isInputRequiredResult(first)) throw new Error('expected the confirmation');
      world.version = 'v2'; // moved on while the person looked at the question
      const second = await alice.round({ inputResponses: { confirm: { action } }, requestState: first.requestState });
      expect(isInputRequiredResult(second)).toBe(false);
      expect(second).toMatchObject({ structuredContent: { status } });
      expect(world.acted).toEqual([]);
      await alice.client.close();
    });
  }
});
