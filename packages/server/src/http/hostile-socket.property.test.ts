/**
 * Hostile bytes on a socket, generated: `toNodeListener` (our own body reading and response
 * writing) on a real loopback port, sent raw requests a fuzzer makes — any method and path,
 * content types and charsets, session ids ours, unknown or malformed, bodies of random bytes,
 * JSON with a byte-order mark, invalid UTF-8 or cut short, framed by length, chunked or not at all.
 * Whatever comes, the server answers with a status a client can act on (never a 5xx) and its
 * headers arrive (a GET stream's at once too), every exchange ends once its socket is gone, and a
 * plain client's call on the session the fuzzer was sending on still works after: nothing it was
 * sent broke the endpoint or that session.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { Client } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog } from '../../test/audit-log.js';
import { createStore, fixtureTools } from '../../test/fixture-tools.js';
import { httpTransport } from '../../test/loopback.js';
import { createElicitkit } from '../kit.js';
import { createHttpHandler, type HttpHandler } from './handler.js';
import { toNodeListener } from './node-listener.js';

let handler: HttpHandler;
let port = 0;
let close: () => Promise<void> = async () => {};
const exchanges: Promise<void>[] = [];
const store = createStore();
let client: Client;
let sessionId = '';

beforeAll(async () => {
  const kit = createElicitkit({ audit: auditLog().sink, timeoutMs: 2_000 });
  handler = createHttpHandler(() => kit.createServer({ name: 'sockets', version: '1' }, fixtureTools(store)));
  const listener = toNodeListener(handler);
  const server = createServer((req, res) => {
    const exchange = listener(req, res);
    // The fuzzer's own (the plain client's stream stays open, as it should).
    if (req.headers['x-fuzz'] !== undefined) exchanges.push(exchange);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  client = new Client({ name: 'plain', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'dev' } }));
  const transport = httpTransport(`http://127.0.0.1:${port}/mcp`);
  await client.connect(transport);
  sessionId = transport.sessionId ?? '';
  close = async () => {
    await client.close();
    await handler.close();
    server.closeAllConnections();
    server.close();
  };
});
afterAll(() => close());

const utf8 = new TextEncoder();
const call = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'deployments', arguments: {} },
  });
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

const body = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.constantFrom(call(7), initialize, '{}', '[]', 'null', '{"jsonrpc":"2.0"', '').map((t) => utf8.encode(t)),
  // A byte-order mark before JSON; invalid UTF-8 inside a string; JSON cut anywhere.
  fc.constant(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8.encode(call(8))])),
  fc.tuple(fc.nat({ max: 40 }), fc.constantFrom(0xff, 0xc3, 0xed, 0x80)).map(([at, b]) => {
    const bytes = [...utf8.encode(call(9))];
    bytes.splice(Math.min(at, bytes.length), 0, b);
    return new Uint8Array(bytes);
  }),
  fc.nat({ max: 80 }).map((n) => utf8.encode(call(10).slice(0, n))),
);

/** Header values a peer might send, within what HTTP can carry on a line. */
const headerValue = fc.string({ maxLength: 40 }).filter((s) => !/[\r\n\0]/.test(s) && s.trim() === s);
/** Mostly `likely` (a request close to a real one, so the fuzz gets past the first checks), else any of `rest`. */
function mostly<T>(likely: T, ...rest: T[]): fc.Arbitrary<T> {
  return fc.oneof({ weight: 3, arbitrary: fc.constant(likely) }, fc.constantFrom(...rest));
}
const request = fc.record({
  method: mostly('POST', 'GET', 'DELETE', 'PUT', 'OPTIONS', 'HEAD', 'PATCH'),
  path: mostly('/mcp', '/', '/mcp?x=1', '/mcp/', '/other', '//mcp', '/%2e%2e/mcp'),
  contentType: mostly<string | undefined>(
    'application/json',
    undefined,
    'application/json; charset=utf-8',
    'application/json; charset=utf-16',
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json, text/plain',
  ),
  accept: mostly<string | undefined>(
    'application/json, text/event-stream',
    undefined,
    'text/event-stream',
    '*/*',
    'text/html',
  ),
  session: fc.oneof({ weight: 3, arbitrary: fc.constant('ours') }, fc.constantFrom('unknown', 'none'), headerValue),
  revision: fc.oneof(
    { weight: 3, arbitrary: fc.constant('2025-11-25') },
    fc.constantFrom(undefined, '2025-06-18', '2026-07-28'),
    headerValue,
  ),
  framing: fc.constantFrom('length', 'chunked', 'none'),
  body,
  extra: fc.array(fc.tuple(fc.stringMatching(/^[a-z][a-z-]{0,15}$/), headerValue), { maxLength: 3 }),
});

type Raw = typeof request extends fc.Arbitrary<infer T> ? T : never;

/** The raw bytes of `r`: its head, and its body framed as asked. */
function bytesOf(r: Raw): Buffer {
  const lines = [`${r.method} ${r.path} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close', 'x-fuzz: 1'];
  if (r.contentType) lines.push(`content-type: ${r.contentType}`);
  if (r.accept) lines.push(`accept: ${r.accept}`);
  // A DELETE with the session's id ends it, as it should: every other request leaves it be.
  if (r.session === 'ours' && r.method !== 'DELETE') lines.push(`mcp-session-id: ${sessionId}`);
  else if (r.session === 'unknown') lines.push('mcp-session-id: 7c9e6679-7425-40de-944b-e07fc1f90ae7');
  else if (r.session !== 'none') lines.push(`mcp-session-id: ${r.session}`);
  if (r.revision) lines.push(`mcp-protocol-version: ${r.revision}`);
  for (const [name, value] of r.extra)
    if (!['host', 'connection', 'content-length', 'transfer-encoding', 'x-fuzz'].includes(name))
      lines.push(`${name}: ${value}`);
  const payload = Buffer.from(r.body);
  if (r.framing === 'length') lines.push(`content-length: ${payload.length}`);
  if (r.framing === 'chunked') lines.push('transfer-encoding: chunked');
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  if (r.framing === 'length') return Buffer.concat([head, payload]);
  if (r.framing === 'chunked')
    return Buffer.concat([
      head,
      payload.length > 0 ? Buffer.from(`${payload.length.toString(16)}\r\n`) : Buffer.alloc(0),
      payload,
      payload.length > 0 ? Buffer.from('\r\n') : Buffer.alloc(0),
      Buffer.from('0\r\n\r\n'),
    ]);
  return head;
}

/**
 * Sends `bytes` on a fresh socket and returns the status of the response once its head has come,
 * then goes (a stream would go on). Fails when no head comes within 10 s.
 */
async function statusOf(bytes: Buffer): Promise<number> {
  const socket = connect(port, '127.0.0.1');
  try {
    return await new Promise<number>((resolve, reject) => {
      let got = '';
      const timer = setTimeout(() => reject(new Error(`no response head in 10 s: ${got.slice(0, 200)}`)), 10_000);
      socket.on('data', (chunk: Buffer) => {
        got += chunk.toString('latin1');
        if (!got.includes('\r\n\r\n')) return;
        clearTimeout(timer);
        const status = /^HTTP\/1\.1 (\d{3}) /.exec(got);
        if (status) resolve(Number(status[1]));
        else reject(new Error(`not an HTTP response: ${got.slice(0, 200)}`));
      });
      socket.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.on('close', () => {
        clearTimeout(timer);
        if (!got.includes('\r\n\r\n')) reject(new Error(`closed with no response head: ${got.slice(0, 200)}`));
      });
      socket.write(bytes);
    });
  } finally {
    socket.destroy();
  }
}

describe('hostile bytes on a socket', () => {
  it('any request a fuzzer makes gets a status a client can act on, and the endpoint serves on', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const status = await statusOf(bytesOf(r));
        expect(status, JSON.stringify({ ...r, body: Buffer.from(r.body).toString('latin1') })).toBeLessThan(500);
      }),
      { numRuns: 400 },
    );
    // Every exchange ended once its socket went, whatever it was (a stream too).
    let ended = false;
    void Promise.all(exchanges).then(() => {
      ended = true;
    });
    await expect.poll(() => ended, { timeout: 10_000 }).toBe(true);
    expect(exchanges.length).toBeGreaterThan(300);
    const result = await client.callTool({ name: 'deploy', arguments: { service: 'api' } });
    expect(result.structuredContent).toMatchObject({ status: 'done' });
    expect(store.deployments.at(-1)).toEqual({ service: 'api', env: 'dev' });
  }, 120_000);
});
