/**
 * A 2026-07-28 `requestState` is bound to the call's arguments as sent (JSON, so equal text is equal
 * arguments), not as the tool's input schema made them: a schema's output may hold values no text
 * tells apart (a `URL`, a `Date`, a `Map` all read as `{}`), or none at all (a `bigint`). Real SDK
 * client, the SDK's handler, in-process fetch.
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

const confirm = form({
  send: field.boolean({ title: 'Send the report', default: false }),
});

function setup() {
  const sent: string[] = [];
  const publish = defineTool({
    name: 'publish_report',
    description: 'Posts the weekly report to a webhook, after the person confirms the host.',
    inputSchema: z.object({ webhook: z.url().transform((u) => new URL(u)) }),
    forms: { confirm },
    async run({ webhook }, ctx) {
      const answer = await ctx.ask('confirm', {
        message: `Send the weekly report (customer list included) to ${webhook.host}?`,
      });
      if (answer.action !== 'accept') return answer.result();
      if (!answer.value.send) return done('Not sent.');
      return ctx.commit(() => {
        sent.push(webhook.href);
        return done(`Sent to ${webhook.href}.`);
      });
    },
  });
  const kit = createElicitkit({ identify: (ctx) => ctx.http?.authInfo?.clientId });
  const handler = createMcpHandler(() => kit.createServer({ name: 'review', version: '1' }, [publish]));
  return { sent, handler };
}

const manual = (handler: ReturnType<typeof createMcpHandler>) => roundsClient(handler, { tool: 'publish_report' });

describe('a state is bound to the arguments as sent', () => {
  it('refuses a state sealed for one webhook on a retry naming another', async () => {
    const { sent, handler } = setup();
    const alice = await manual(handler);
    const first = await alice.round({ webhook: 'https://hooks.example.com/team-reports' });
    if (!isInputRequiredResult(first)) throw new Error('expected the confirmation');
    // The retry keeps the state and the confirmation, but names another URL on the same host.
    const retried = await alice
      .round(
        { webhook: 'https://hooks.example.com/somebody-else?exfil=1' },
        {
          inputResponses: { confirm: { action: 'accept', content: { send: true } } },
          requestState: first.requestState,
        },
      )
      .catch((error: unknown) => error);
    // Refused as a state issued for a different call, before the tool runs (-32602: state-seam.ts).
    expect(retried).toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } });
    // Nothing was sent anywhere: the person confirmed the first call, not this one.
    expect(sent).toEqual([]);
    // The call it was sealed for still goes on, once.
    const same = await alice.round(
      { webhook: 'https://hooks.example.com/team-reports' },
      { inputResponses: { confirm: { action: 'accept', content: { send: true } } }, requestState: first.requestState },
    );
    expect(same).toMatchObject({ content: [{ text: 'Sent to https://hooks.example.com/team-reports.' }] });
    expect(sent).toEqual(['https://hooks.example.com/team-reports']);
    await alice.client.close();
  });

  it('serves a tool whose schema makes values JSON has no text for (a bigint) on every round', async () => {
    const paid: bigint[] = [];
    const pay = defineTool({
      name: 'publish_report',
      description: 'Pays an amount in cents, after the person confirms.',
      inputSchema: z.object({
        cents: z
          .string()
          .regex(/^\d+$/)
          .transform((c) => BigInt(c)),
      }),
      forms: { confirm },
      async run({ cents }, ctx) {
        const answer = await ctx.ask('confirm', { message: `Pay ${cents} cents?` });
        if (answer.action !== 'accept') return answer.result();
        return ctx.commit(() => {
          paid.push(cents);
          return done(`Paid ${cents}.`);
        });
      },
    });
    const kit = createElicitkit({ identify: (ctx) => ctx.http?.authInfo?.clientId });
    const alice = await manual(createMcpHandler(() => kit.createServer({ name: 'review', version: '1' }, [pay])));
    const first = await alice.round({ cents: '12345678901234567890' });
    if (!isInputRequiredResult(first)) throw new Error('expected the confirmation');
    const last = await alice.round(
      { cents: '12345678901234567890' },
      { inputResponses: { confirm: { action: 'accept', content: { send: true } } }, requestState: first.requestState },
    );
    expect(last).toMatchObject({ content: [{ text: 'Paid 12345678901234567890.' }] });
    expect(paid).toEqual([12_345_678_901_234_567_890n]);
    await alice.client.close();
  });
});
