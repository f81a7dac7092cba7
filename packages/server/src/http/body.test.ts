/**
 * The handler reads each POST body once and hands it on parsed: what it cannot use gets the same
 * clear answers the SDK's transports give (413, 415, 400), loses nothing, and the endpoint keeps
 * serving both revisions after it — the same through our Node listener as through the SDK's
 * adapter onto `fetch`, byte for byte where bytes are odd (invalid UTF-8, a byte-order mark).
 */
import { Client } from '@modelcontextprotocol/client';
import { DEFAULT_MAX_REQUEST_BODY_SIZE, PARSE_ERROR } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { wireRound } from '../../../../test/support/modern-wire.js';
import { ADAPTERS, httpTransport, type Loopback, loopback } from '../../test/loopback.js';

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

/** Both revisions still complete a call: nothing the refused requests did is left behind. */
async function stillServes(url: string): Promise<void> {
  const modern = await wireRound(url, { name: 'deploy', arguments: { service: 'api', env: 'dev' } });
  expect(modern.result?.structuredContent).toMatchObject({ status: 'done' });
  const client = new Client({ name: 'legacy', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  await client.connect(httpTransport(url));
  const result = await client.callTool({ name: 'deploy', arguments: { service: 'api', env: 'staging' } });
  expect(result.structuredContent).toMatchObject({ status: 'done' });
  await client.close();
}

/** A body sent in pieces, without a content-length (chunked). */
function chunked(bytes: Uint8Array, size = 65_536): RequestInit {
  return {
    method: 'POST',
    headers: JSON_HEADERS,
    body: new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.subarray(i, i + size));
        controller.close();
      },
    }),
    duplex: 'half',
  } as RequestInit;
}

describe.each(ADAPTERS)('POST bodies, read once (%s adapter)', (adapter) => {
  it('refuses a body over the limit with 413, declared or streamed, before parsing it', async () => {
    server = await loopback({ adapter });
    const huge = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'x'.repeat(DEFAULT_MAX_REQUEST_BODY_SIZE)}"}}`;
    const declared = await fetch(server.url, { method: 'POST', headers: JSON_HEADERS, body: huge });
    expect(declared.status).toBe(413);
    expect((await declared.json()).error.message).toMatch(/Payload Too Large/);
    const streamed = await fetch(server.url, chunked(new TextEncoder().encode(huge)));
    expect(streamed.status).toBe(413);
    expect((await streamed.json()).error.message).toBe(
      `Payload Too Large: Request body must not exceed ${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes`,
    );
    await stillServes(server.url);
  });

  it('takes a chunked body under the limit, however it is cut', async () => {
    server = await loopback({ adapter });
    const opened = await fetch(server.url, chunked(new TextEncoder().encode(initialize(3)), 7));
    expect(opened.status).toBe(200);
    await opened.body?.cancel();
    expect(server.handler.sessionCount()).toBe(1);
  });

  it('decodes odd bytes as the SDK does: invalid UTF-8 replaced, a byte-order mark dropped', async () => {
    server = await loopback({ adapter });
    const [open, close] = initialize(4).split('"raw"');
    const invalid = new Uint8Array([
      ...new TextEncoder().encode(`${open}"r\u0061w`),
      0xff,
      0xc3,
      ...new TextEncoder().encode(`"${close}`),
    ]);
    const replaced = await fetch(server.url, { method: 'POST', headers: JSON_HEADERS, body: invalid });
    expect(replaced.status).toBe(200);
    await replaced.body?.cancel();
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(initialize(5))]);
    const marked = await fetch(server.url, { method: 'POST', headers: JSON_HEADERS, body: bom });
    expect(marked.status).toBe(200);
    await marked.body?.cancel();
    expect(server.handler.sessionCount()).toBe(2);
    const garbage = await fetch(server.url, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: new Uint8Array([0xff, 0xfe, 0x7b]),
    });
    expect(garbage.status).toBe(400);
    expect((await garbage.json()).error.code).toBe(PARSE_ERROR);
    await stillServes(server.url);
  });

  it('answers 415 for a body that is not JSON by its content type', async () => {
    server = await loopback({ adapter });
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'content-type': 'text/plain' },
      body: initialize(1),
    });
    expect(response.status).toBe(415);
    expect(server.handler.sessionCount()).toBe(0);
    await stillServes(server.url);
  });

  it('answers a parse error for broken or empty JSON, with and without a session', async () => {
    server = await loopback({ adapter });
    for (const body of ['{"jsonrpc":', '']) {
      const response = await fetch(server.url, { method: 'POST', headers: JSON_HEADERS, body });
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe(PARSE_ERROR);
    }
    const opened = await fetch(server.url, { method: 'POST', headers: JSON_HEADERS, body: initialize(7) });
    const session = opened.headers.get('mcp-session-id') ?? '';
    expect(session).not.toBe('');
    await opened.body?.cancel();
    const broken = await fetch(server.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: '[{"jsonrpc":"2.0",',
    });
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.code).toBe(PARSE_ERROR);
    await stillServes(server.url);
  });
});
