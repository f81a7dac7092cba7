/**
 * A request with no Host header is judged by the authority in its URL: an HTTP/2 request carries
 * it as `:authority` (Deno.serve over TLS hands the handler no Host header), and a `Request` made
 * in the same process — the in-process recipe, `fetch: (url, init) => handler.fetch(new
 * Request(url, init))` — has none either. Both were refused 403 'Missing Host header'. A name not
 * allowed is refused as before, header or URL.
 */
import { revisionOptions } from '@elicitkit/client';
import type { Revision } from '@elicitkit/form';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { createElicitkit } from '../kit.js';
import { done } from '../results.js';
import { defineTool } from '../tool.js';
import { createHttpHandler, type HttpHandler } from './handler.js';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

const echo = defineTool({
  name: 'echo',
  description: 'Says what it was given.',
  inputSchema: z.object({ text: z.string() }),
  forms: {},
  async run({ text }) {
    return done(`You said ${text}.`);
  },
});

function endpoint(): HttpHandler {
  const kit = createElicitkit();
  const handler = createHttpHandler(() => kit.createServer({ name: 'in-process', version: '1' }, [echo]));
  closing.push(() => handler.close());
  return handler;
}

describe('a request whose authority is in its URL, not in a Host header', () => {
  for (const revision of ['2025-11-25', '2026-07-28'] as Revision[]) {
    it(`is served in process, for a ${revision} client`, async () => {
      const handler = endpoint();
      const client = new Client(
        { name: 'in-process', version: '1' },
        { capabilities: {}, ...revisionOptions(revision) },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
          fetch: (url, init) => handler.fetch(new Request(url, init)),
        }),
      );
      closing.push(() => client.close());
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      expect(result.content).toEqual([{ type: 'text', text: 'You said hi.' }]);
      expect(client.getNegotiatedProtocolVersion()).toBe(revision);
    });
  }

  it('is refused when the name in its URL is not allowed, or its Origin is not', async () => {
    const handler = endpoint();
    const post = (url: string, headers: Record<string, string> = {}) =>
      handler.fetch(
        new Request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        }),
      );
    for (const refused of [
      await post('http://evil.example/mcp'),
      await post('http://evil.example:7777/mcp'),
      await post('http://localhost/mcp', { origin: 'http://evil.example' }),
    ]) {
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: { code: -32000 } });
    }
    // A Host header, when there is one, is what is judged, whatever the URL says.
    expect((await post('http://localhost/mcp', { host: 'evil.example' })).status).toBe(403);
  });
});
