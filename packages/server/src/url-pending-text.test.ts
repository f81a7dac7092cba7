/**
 * `pending` ends the call while the person is still on the page: the tool's own work after the
 * page (sending a report with the access the page grants) does not run when they finish there —
 * nothing is left waiting to run it. The ready-made result said "<tool> takes effect once they
 * do", so the model told the person their report would go out by itself, and it never did. It
 * now says what is true of every tool: what the page does happens there, the tool does not go on
 * by itself, call it again once they have finished. Real SDK client over a linked in-memory pair.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { createElicitkit } from './kit.js';
import type { Locale } from './messages.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function shareReport(locale: Locale) {
  const page = { finished: false };
  const sent: string[] = [];
  const tool = defineTool({
    name: 'share_report',
    description: 'Shares the weekly report to the person’s drive, once they connect it on our page.',
    inputSchema: z.object({}),
    async run(_args, ctx) {
      const connect = await ctx.askUrl('connect', {
        message: 'Connect your drive on our page.',
        url: 'https://reports.example.com/connect/abc',
        isComplete: () => page.finished,
      });
      if (connect.action !== 'accept') return connect.result();
      return ctx.commit(() => {
        sent.push('weekly');
        return done('Shared.');
      });
    },
  });
  const kit = createElicitkit({ urlWaitMs: 20, pollMs: 5, locale });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await kit.createServer({ name: 'reports', version: '1' }, [tool]).connect(a);
  const client = new Client({ name: 'person', version: '1' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept' }));
  await client.connect(b);
  cleanup.push(() => client.close());
  const result = await client.callTool({ name: 'share_report', arguments: {} });
  // The person finishes on the page after the call ended: nothing runs the tool's own work.
  page.finished = true;
  return { result, sent };
}

describe('the pending result of a page not finished yet', () => {
  it('en: does not promise the tool takes effect by itself; says to call it again', async () => {
    const { result, sent } = await shareReport('en');
    expect(result.structuredContent).toMatchObject({ status: 'pending' });
    const text = JSON.stringify(result.content);
    expect(text).not.toContain('takes effect once');
    expect(text).toContain('call share_report again');
    expect(sent).toEqual([]);
  });

  it('zh: the same', async () => {
    const { result } = await shareReport('zh');
    const text = JSON.stringify(result.content);
    expect(text).not.toContain('的结果才会生效');
    expect(text).toContain('再次调用 share_report');
  });
});
