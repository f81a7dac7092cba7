/**
 * DNS-rebinding protection with the passed Host/Origin pairs remembered: what passed once passes
 * again without a URL parse, and nothing that the SDK's checks refuse ever passes — not a bad
 * Origin on a good Host, not an empty Host (a missing one is the URL's authority, checked alike),
 * not after the remembered set fills up and starts again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createElicitkit } from '../kit.js';
import { createHttpHandler, type HttpHandler } from './handler.js';

let handler: HttpHandler | undefined;
afterEach(async () => {
  await handler?.close();
  handler = undefined;
});

function open(): HttpHandler {
  const kit = createElicitkit();
  handler = createHttpHandler(() => kit.createServer({ name: 't', version: '1' }, []));
  return handler;
}

/** A POST the endpoint refuses for its own reasons (no session) once the headers pass: 400, not 403. */
async function statusFor(
  h: HttpHandler,
  host: string | undefined,
  origin?: string,
  url = 'http://127.0.0.1/mcp',
): Promise<number> {
  const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
  if (origin !== undefined) headers.set('origin', origin);
  const request = new Request(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  // undici's Request fills no Host header itself: set it (or leave it out) as a socket would.
  if (host === undefined) request.headers.delete('host');
  else request.headers.set('host', host);
  return (await h.fetch(request)).status;
}

describe('Host and Origin checks, remembered', () => {
  it('refuses a bad Origin or Host the same before and after a good pair passed', async () => {
    const h = open();
    expect(await statusFor(h, 'evil.example')).toBe(403);
    expect(await statusFor(h, 'localhost:7777', 'http://evil.example')).toBe(403);
    expect(await statusFor(h, 'localhost:7777')).toBe(400);
    expect(await statusFor(h, 'localhost:7777')).toBe(400);
    expect(await statusFor(h, 'localhost:7777', 'http://localhost:3000')).toBe(400);
    expect(await statusFor(h, 'localhost:7777', 'http://localhost:3000')).toBe(400);
    // The same Host with another Origin is another pair: checked again.
    expect(await statusFor(h, 'localhost:7777', 'http://evil.example')).toBe(403);
    expect(await statusFor(h, 'localhost:7777', 'null')).toBe(403);
    expect(await statusFor(h, 'evil.example')).toBe(403);
    expect(await statusFor(h, 'evil.example:7777')).toBe(403);
    expect(await statusFor(h, '')).toBe(403);
    // No Host header: the authority in the URL is judged (an HTTP/2 request's, host-from-url.test.ts).
    expect(await statusFor(h, undefined)).toBe(400);
    expect(await statusFor(h, undefined, undefined, 'http://evil.example/mcp')).toBe(403);
    expect(await statusFor(h, undefined, 'http://evil.example')).toBe(403);
  });

  it('keeps refusing after the remembered pairs fill up and start again', async () => {
    const h = open();
    for (let port = 1000; port < 1600; port++) expect(await statusFor(h, `127.0.0.1:${port}`)).toBe(400);
    expect(await statusFor(h, 'evil.example:1000')).toBe(403);
    expect(await statusFor(h, '127.0.0.1:1000', 'http://evil.example')).toBe(403);
    expect(await statusFor(h, '127.0.0.1:1599')).toBe(400);
    expect(await statusFor(h, '127.0.0.1:1000')).toBe(400);
  });
});
