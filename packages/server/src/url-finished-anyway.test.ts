/**
 * URL mode shows the person the link, so they may finish the flow on the page and then decline,
 * cancel or let the dialog time out. What they did on the page happened: `askUrl` ends as
 * `accept`, so the tool reports what exists (no "declined, nothing was done" beside an account
 * made), and the cancel guard (EK05) is not tripped by the truth. A flow that did not finish
 * still ends as the answer said. Real SDK clients: a linked in-memory pair (2025-11-25) and
 * rounds by hand through the SDK's handler (2026-07-28).
 */
import { Client } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport, isInputRequiredResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { auditLog } from '../test/audit-log.js';
import { roundsClient } from '../test/rounds.js';
import { createElicitkit } from './kit.js';
import { done, outcomeSchema } from './results.js';
import { defineTool } from './tool.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A tool whose page the test "finishes" (or not) before the person answers the dialog. */
function enrolTool(page: { finished: boolean; throws?: boolean }) {
  return defineTool({
    name: 'enrol',
    description: 'Enrols the person; they set their secret on our page.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ enrolled: z.boolean() }),
    async run(_args, { askUrl }) {
      const answer = await askUrl('secret', {
        message: 'Open the page to set your secret.',
        url: 'https://accounts.example.com/secret/abc',
        isComplete: () => {
          if (page.throws) throw new Error('the page store is down');
          return page.finished;
        },
      });
      if (answer.action === 'accept') return done('Enrolled.', { enrolled: true });
      return answer.result();
    },
  });
}

async function pushed(page: { finished: boolean; throws?: boolean }, action: 'decline' | 'cancel') {
  const log = auditLog();
  const kit = createElicitkit({ audit: log.sink, urlWaitMs: 200, pollMs: 5 });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await kit.createServer({ name: 'accounts', version: '1' }, [enrolTool(page)]).connect(a);
  const client = new Client({ name: 'person', version: '1' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler('elicitation/create', async () => {
    page.finished = true; // the person finished on the page, then answered the dialog
    return { action };
  });
  await client.connect(b);
  cleanup.push(() => client.close());
  const result = await client.callTool({ name: 'enrol', arguments: {} });
  return { result, log };
}

describe('a page question refused after its flow finished', () => {
  for (const action of ['decline', 'cancel'] as const) {
    it(`2025-11-25, ${action}: ends as accept, the tool reports what was done; the trail keeps the answer`, async () => {
      const { result, log } = await pushed({ finished: false }, action);
      expect(result.structuredContent).toMatchObject({ status: 'done', enrolled: true });
      expect(log.events.filter((e) => e.type === 'response').map((e) => e.action)).toEqual([action]);
      expect(log.events.filter((e) => e.type === 'violation')).toEqual([]);
    });
  }

  it('2025-11-25: a flow that did not finish ends as the answer said', async () => {
    const page = { finished: false };
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink, urlWaitMs: 200, pollMs: 5 });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await kit.createServer({ name: 'accounts', version: '1' }, [enrolTool(page)]).connect(a);
    const client = new Client({ name: 'person', version: '1' }, { capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'cancel' }));
    await client.connect(b);
    cleanup.push(() => client.close());
    const result = await client.callTool({ name: 'enrol', arguments: {} });
    expect(result.structuredContent).toMatchObject({ status: 'cancelled' });
  });

  it('2025-11-25: an isComplete that throws counts as not finished', async () => {
    const { result } = await pushed({ finished: false, throws: true }, 'decline');
    expect(result.structuredContent).toMatchObject({ status: 'declined' });
  });

  for (const action of ['decline', 'cancel'] as const) {
    it(`2026-07-28, ${action} carried by the next round: ends as accept`, async () => {
      const page = { finished: false };
      const kit = createElicitkit({ urlWaitMs: 200, pollMs: 5 });
      const handler = createMcpHandler(() => kit.createServer({ name: 'accounts', version: '1' }, [enrolTool(page)]));
      const alice = await roundsClient(handler, { tool: 'enrol', capabilities: { elicitation: { url: {} } } });
      cleanup.push(() => alice.client.close());
      const first = await alice.round({});
      if (!isInputRequiredResult(first)) throw new Error(`expected input_required, got ${JSON.stringify(first)}`);
      page.finished = true;
      const second = await alice.round(
        {},
        { inputResponses: { secret: { action } }, requestState: first.requestState },
      );
      expect(second).toMatchObject({ structuredContent: { status: 'done', enrolled: true } });
      // Not finished: the refusal stands.
      const unfinished = { finished: false };
      const kit2 = createElicitkit({ urlWaitMs: 200, pollMs: 5 });
      const other = createMcpHandler(() =>
        kit2.createServer({ name: 'accounts', version: '1' }, [enrolTool(unfinished)]),
      );
      const bob = await roundsClient(other, { tool: 'enrol', capabilities: { elicitation: { url: {} } } });
      cleanup.push(() => bob.client.close());
      const asked = await bob.round({});
      if (!isInputRequiredResult(asked)) throw new Error('expected input_required');
      const refused = await bob.round({}, { inputResponses: { secret: { action } }, requestState: asked.requestState });
      expect(refused).toMatchObject({ structuredContent: { status: action === 'decline' ? 'declined' : 'cancelled' } });
    });
  }
});
