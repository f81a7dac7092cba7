/**
 * A URL-mode question whose call the client cancels while the person is on the page (consent
 * given, the flow there not finished): `askUrl` ends as `cancel`, so the tool withdraws what the
 * page would do, never as `pending` (which would leave the page working for a call nobody waits
 * for any more). A request that only went away (a dropped connection) stays `pending`: a retry
 * finds the flow done. Real SDK clients: a linked in-memory pair and a 2025 session over HTTP.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { legacySession, sseMessages } from '../../../test/support/sse.js';
import { auditLog } from '../test/audit-log.js';
import { onLoopback } from '../test/loopback.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit } from './kit.js';
import type { UrlOutcome } from './outcome.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/**
 * A tool that sends the person to a page whose flow never finishes — or, `finishesAtLast`, is
 * found finished by the last check (a submit landing as the cancel came); it reports the outcome
 * it got, and each check's `final`.
 */
function pageTool({ finishesAtLast = false } = {}) {
  const outcomes: UrlOutcome['action'][] = [];
  const checks: boolean[] = [];
  const withdrawn: string[] = [];
  let consented!: () => void;
  const onPage = new Promise<void>((resolve) => {
    consented = resolve;
  });
  const tool = defineTool({
    name: 'enrol',
    description: 'Enrols the person; they set their secret on our page.',
    inputSchema: z.object({}),
    async run(_args, { askUrl, contextId }) {
      const page = await askUrl('secret', {
        message: 'Open the page to set your secret.',
        url: 'https://accounts.example.com/secret/abc',
        isComplete: ({ final }) => {
          checks.push(final);
          consented();
          return final && finishesAtLast;
        },
      });
      outcomes.push(page.action);
      if (page.action === 'accept') return done('Enrolled.');
      if (page.action !== 'pending') withdrawn.push(contextId);
      return page.result();
    },
  });
  return { tool, outcomes, checks, withdrawn, onPage };
}

function consenting() {
  const client = new Client({ name: 'person', version: '1' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept' }));
  cleanup.push(() => client.close().catch(() => {}));
  return client;
}

/** A consenting client linked in memory to `kit` serving `tool` (2025-11-25). */
async function inMemory(kit: ReturnType<typeof createElicitkit>, tool: ReturnType<typeof pageTool>['tool']) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await kit.createServer({ name: 'accounts', version: '1' }, [tool]).connect(a);
  const client = consenting();
  await client.connect(b);
  return client;
}

async function overHttp(kit: ReturnType<typeof createElicitkit>, tool: ReturnType<typeof pageTool>['tool']) {
  const served = await onLoopback(
    createHttpHandler(() => kit.createServer({ name: 'accounts', version: '1' }, [tool])),
  );
  cleanup.push(served.close);
  return new URL(served.url);
}

/** Calls the tool, cancels once the person is on the page, and waits for the tool's outcome. */
async function cancelOnPage(client: Client, page: ReturnType<typeof pageTool>) {
  const abort = new AbortController();
  const call = client.callTool({ name: 'enrol', arguments: {} }, { signal: abort.signal }).catch((e: unknown) => e);
  await page.onPage;
  abort.abort();
  expect(await call).toBeInstanceOf(Error);
  await expect.poll(() => page.outcomes.length).toBe(1);
}

describe('a URL-mode question whose call is cancelled while the page is open', () => {
  it('2025-11-25 over an in-memory pair: askUrl ends as cancel, and the audit says why', async () => {
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink, urlWaitMs: 60_000, pollMs: 5 });
    const page = pageTool();
    const client = await inMemory(kit, page.tool);
    await cancelOnPage(client, page);
    expect(page.outcomes).toEqual(['cancel']);
    expect(page.withdrawn).toHaveLength(1);
    await expect
      .poll(() => log.events.filter((e) => e.type === 'response').map((e) => [e.action, e.reason ?? null]))
      .toEqual([
        ['accept', null],
        ['cancel', 'client-cancelled'],
      ]);
    expect(log.events.at(-1)).toMatchObject({ detail: expect.stringContaining('before the flow there finished') });
  });

  it('the last check is final, once, after the polls: the tool closes the flow in that step', async () => {
    const kit = createElicitkit({ urlWaitMs: 60_000, pollMs: 5 });
    const page = pageTool();
    const client = await inMemory(kit, page.tool);
    await cancelOnPage(client, page);
    expect(page.checks.at(-1)).toBe(true);
    expect(page.checks.filter(Boolean)).toHaveLength(1);
    expect(page.checks.slice(0, -1).length).toBeGreaterThan(0);
  });

  it('a flow the last check finds finished (its submit landed as the cancel came) ends as accept', async () => {
    const log = auditLog();
    const kit = createElicitkit({ audit: log.sink, urlWaitMs: 60_000, pollMs: 5 });
    const page = pageTool({ finishesAtLast: true });
    const client = await inMemory(kit, page.tool);
    await cancelOnPage(client, page);
    expect(page.outcomes).toEqual(['accept']);
    expect(page.withdrawn).toEqual([]);
    // The trail keeps the consent, and no "cancelled before the flow there finished".
    expect(log.events.filter((e) => e.type === 'response').map((e) => e.action)).toEqual(['accept']);
  });

  it('2025-11-25 session over HTTP (notifications/cancelled): the same', async () => {
    const kit = createElicitkit({ urlWaitMs: 60_000, pollMs: 5 });
    const page = pageTool();
    const client = consenting();
    await client.connect(new StreamableHTTPClientTransport(await overHttp(kit, page.tool)));
    await cancelOnPage(client, page);
    expect(page.outcomes).toEqual(['cancel']);
  });

  it('a request that only went away (no cancel) leaves the page pending: a retry may find it done', async () => {
    const kit = createElicitkit({ urlWaitMs: 60_000, pollMs: 5 });
    const page = pageTool();
    const url = await overHttp(kit, page.tool);
    // By hand, so that the call's connection can be cut without a notifications/cancelled.
    const { post } = await legacySession(url.href);
    const gone = new AbortController();
    const call = await post({ id: 1, method: 'tools/call', params: { name: 'enrol', arguments: {} } }, {}, gone.signal);
    const stream = sseMessages(call);
    const question = (await stream.next()) as { id: number; method: string };
    expect(question.method).toBe('elicitation/create');
    expect((await post({ id: question.id, result: { action: 'accept' } })).status).toBe(202);
    await page.onPage;
    gone.abort();
    await expect.poll(() => page.outcomes).toEqual(['pending']);
    expect(page.withdrawn).toEqual([]);
  });

  it('a page the person has not finished when nobody cancelled stays pending, as before', async () => {
    const kit = createElicitkit({ urlWaitMs: 30, pollMs: 5 });
    const page = pageTool();
    const client = await inMemory(kit, page.tool);
    const result = await client.callTool({ name: 'enrol', arguments: {} });
    expect(result).toMatchObject({ structuredContent: { status: 'pending' } });
    expect(page.outcomes).toEqual(['pending']);
    expect(page.withdrawn).toEqual([]);
  });
});
