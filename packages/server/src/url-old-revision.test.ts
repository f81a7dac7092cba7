/**
 * 2025-06-18 has no URL mode. A client on it may still declare `elicitation: { url: {} }` (a
 * client library that declares what its renderer can do whatever the version it negotiates):
 * `ctx.can.url` says what the client can be asked, so on 2025-06-18 it is false, and a tool that
 * reads it takes its own way out; `askUrl` ends unsupported saying the revision has no URL mode,
 * not that the client did not declare it. Real SDK client over a linked in-memory pair.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { createElicitkit } from './kit.js';
import { done, rejected } from './results.js';
import { defineTool } from './tool.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const OWN_WAY = 'Open https://accounts.example.com/register to set your password, then call again.';

const register = defineTool({
  name: 'register',
  description: 'Registers the person; they set their password on our page.',
  inputSchema: z.object({ ownWay: z.boolean() }),
  async run({ ownWay }, ctx) {
    if (ownWay && !ctx.can.url) return rejected(OWN_WAY);
    const page = await ctx.askUrl('password', {
      message: 'Set your password on our page.',
      url: 'https://accounts.example.com/register/abc',
      isComplete: () => false,
    });
    if (page.action === 'accept') return done('Registered.');
    return page.result();
  },
});

async function connected(versions: string[]) {
  const kit = createElicitkit({ urlWaitMs: 0 });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await kit.createServer({ name: 'accounts', version: '1' }, [register]).connect(a);
  const client = new Client(
    { name: 'person', version: '1' },
    { capabilities: { elicitation: { form: {}, url: {} } }, supportedProtocolVersions: versions },
  );
  const asked: unknown[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params);
    return { action: 'accept' };
  });
  await client.connect(b);
  cleanup.push(() => client.close());
  return { client, asked };
}

describe('a URL question to a 2025-06-18 client that declares URL mode', () => {
  it('ctx.can.url is false: the tool takes its own way, nothing is asked', async () => {
    const { client, asked } = await connected(['2025-06-18']);
    const result = await client.callTool({ name: 'register', arguments: { ownWay: true } });
    expect(result.structuredContent).toMatchObject({ status: 'rejected' });
    expect(JSON.stringify(result.content)).toContain(OWN_WAY);
    expect(asked).toEqual([]);
  });

  it('askUrl ends unsupported, naming the revision rather than a capability it declared', async () => {
    const { client, asked } = await connected(['2025-06-18']);
    const result = await client.callTool({ name: 'register', arguments: { ownWay: false } });
    expect(result.structuredContent).toMatchObject({ status: 'unsupported' });
    const text = JSON.stringify(result.content);
    expect(text).toContain('2025-06-18');
    expect(text).not.toContain('did not declare');
    expect(asked).toEqual([]);
  });

  it('on 2025-11-25 the same client is asked', async () => {
    const { client, asked } = await connected(['2025-11-25']);
    const result = await client.callTool({ name: 'register', arguments: { ownWay: true } });
    expect(result.structuredContent).toMatchObject({ status: 'pending' });
    expect(asked).toHaveLength(1);
  });
});
