/**
 * After consent, `askUrl` polls `isComplete` while the person is on the page. A poll that throws
 * (the page's store unreachable a moment) tells nothing about the flow: it counts as not finished
 * yet, as a throwing last check does, and the polls go on. It must not end the call with the
 * store's error while the person is still on the page (the flow then left open, never closed by a
 * last check, and finished after the call reported failure; the store's raw error text handed to
 * the model). Real SDK clients: a linked in-memory
 * pair (2025-11-25) and rounds by hand through the SDK's handler (2026-07-28).
 */
import { Client } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport, isInputRequiredResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { roundsClient } from '../test/rounds.js';
import { createElicitkit } from './kit.js';
import { done, outcomeSchema } from './results.js';
import { defineTool } from './tool.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

interface Page {
  finished: boolean;
  /** Polls (`final: false`) that throw before the store answers again. */
  failing: number;
  checks: boolean[];
}

function enrolTool(page: Page) {
  return defineTool({
    name: 'enrol',
    description: 'Enrols the person; they set their secret on our page.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ enrolled: z.boolean() }),
    async run(_args, { askUrl }) {
      const answer = await askUrl('secret', {
        message: 'Open the page to set your secret.',
        url: 'https://accounts.example.com/secret/abc',
        isComplete: ({ final }) => {
          page.checks.push(final);
          if (!final && page.failing > 0) {
            page.failing -= 1;
            throw new Error('connect ECONNREFUSED 10.0.0.7:6379');
          }
          return page.finished;
        },
      });
      if (answer.action === 'accept') return done('Enrolled.', { enrolled: true });
      return answer.result();
    },
  });
}

async function pushed(page: Page, onConsent: () => void) {
  const kit = createElicitkit({ urlWaitMs: 60_000, pollMs: 5 });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await kit.createServer({ name: 'accounts', version: '1' }, [enrolTool(page)]).connect(a);
  const client = new Client({ name: 'person', version: '1' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler('elicitation/create', async () => {
    onConsent();
    return { action: 'accept' };
  });
  await client.connect(b);
  cleanup.push(() => client.close());
  return client.callTool({ name: 'enrol', arguments: {} });
}

describe('a page question whose poll throws', () => {
  it('2025-11-25: a poll that throws counts as not finished; the flow finished after it ends as accept', async () => {
    const page: Page = { finished: false, failing: 2, checks: [] };
    // The person finishes on the page at once; the store cannot say so for two polls.
    const result = await pushed(page, () => {
      page.finished = true;
    });
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 'done', enrolled: true });
  });

  it('2025-11-25: polls that keep throwing until the wait is over end as pending, not as the store error', async () => {
    const page: Page = { finished: false, failing: Number.POSITIVE_INFINITY, checks: [] };
    const kit = createElicitkit({ urlWaitMs: 20, pollMs: 5 });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await kit.createServer({ name: 'accounts', version: '1' }, [enrolTool(page)]).connect(a);
    const client = new Client({ name: 'person', version: '1' }, { capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept' }));
    await client.connect(b);
    cleanup.push(() => client.close());
    const result = await client.callTool({ name: 'enrol', arguments: {} });
    expect(JSON.stringify(result.content)).not.toContain('ECONNREFUSED');
    expect(result.structuredContent).toMatchObject({ status: 'pending' });
  });

  it('2026-07-28: a poll that throws in the answering round counts as not finished', async () => {
    const page: Page = { finished: false, failing: 1, checks: [] };
    const kit = createElicitkit({ urlWaitMs: 60_000, pollMs: 5 });
    const tool = enrolTool(page);
    const handler = createMcpHandler(() => kit.createServer({ name: 'accounts', version: '1' }, [tool]));
    const alice = await roundsClient(handler, { tool: 'enrol', capabilities: { elicitation: { url: {} } } });
    cleanup.push(() => alice.client.close());
    const first = await alice.round({});
    if (!isInputRequiredResult(first)) throw new Error(`expected input_required, got ${JSON.stringify(first)}`);
    page.finished = true;
    const second = await alice.round(
      {},
      { inputResponses: { secret: { action: 'accept' } }, requestState: first.requestState },
    );
    expect(second).toMatchObject({ structuredContent: { status: 'done', enrolled: true } });
  });
});
