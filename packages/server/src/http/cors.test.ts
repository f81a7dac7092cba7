/**
 * Browser callers from another origin (`cors: true`, their origin in `allowedOrigins`): their
 * CORS preflight is answered (before `authenticate`: a preflight carries no credential) and every
 * response lets the page read it, the session id too. Without `cors` a page on some other port of
 * an allowed host drives nothing. Checked over real HTTP, and in Debian's Chromium (skipped with a
 * printed line without it; under CI its absence fails the run), whose CORS rules are the ones that count.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { serviceFor } from '../../../../test/support/service.js';
import { ADAPTERS, loopback } from '../../test/loopback.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

const PAGE = 'http://app.example:8080';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
};

function preflightFrom(url: string, origin: string, headers = 'content-type, mcp-protocol-version, authorization') {
  return fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
  });
}

describe.each(ADAPTERS)('a page on another origin (%s adapter)', (adapter) => {
  async function serve(cors = true) {
    const s = await loopback({ adapter, authenticated: true, allowedOrigins: ['app.example', 'localhost'], cors });
    cleanup.push(() => s.close());
    return s;
  }

  it('gets its preflight answered, without a credential, for the headers it asked', async () => {
    const s = await serve();
    const answered = await preflightFrom(
      s.url,
      PAGE,
      'Content-Type, MCP-Protocol-Version, Authorization, Mcp-Param-Region',
    );
    expect(answered.status).toBe(204);
    expect(answered.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(answered.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
    expect(answered.headers.get('access-control-allow-headers')).toBe(
      'Content-Type, MCP-Protocol-Version, Authorization, Mcp-Param-Region',
    );
    expect(answered.headers.get('vary')).toContain('origin');
  });

  it('reads the responses, the session id among them, and its calls are authenticated as any other', async () => {
    const s = await serve();
    const headers = {
      origin: PAGE,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const refused = await fetch(s.url, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(PAGE);
    const opened = await fetch(s.url, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer alice' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('mcp-session-id')).toBeTruthy();
    expect(opened.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(opened.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    await opened.text();
  });

  it('is refused when its origin is not named, preflight and all', async () => {
    const s = await serve();
    const refused = await preflightFrom(s.url, 'http://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('drives nothing without cors, its origin allowed or not: same-origin pages only', async () => {
    const s = await serve(false);
    const preflight = await preflightFrom(s.url, 'http://localhost:5173');
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const posted = await fetch(s.url, {
      method: 'POST',
      headers: {
        origin: 'http://localhost:5173',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer alice',
      },
      body: JSON.stringify(INITIALIZE),
    });
    expect(posted.headers.get('access-control-allow-origin')).toBeNull();
    await posted.text();
  });

  it('leaves a header list it cannot read out of the preflight', async () => {
    const s = await serve();
    const answered = await preflightFrom(s.url, PAGE, 'content-type, (bad)');
    expect(answered.status).toBe(204);
    expect(answered.headers.get('access-control-allow-headers')).toBeNull();
  });
});

const hasChromium = serviceFor(
  'cors.test',
  existsSync(CHROMIUM),
  `no Chromium at ${CHROMIUM}`,
  'apt-get install chromium',
);

describe.skipIf(!hasChromium)('in Chromium', () => {
  it('a page on another origin opens a session and lists the tools', async () => {
    const s = await loopback({ authenticated: true, allowedOrigins: ['localhost'], cors: true });
    cleanup.push(() => s.close());
    // The page's own origin: another port, named `localhost` (the endpoint is on 127.0.0.1).
    const site = createServer((_req, res) => res.end('<!doctype html><title>page</title>'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    cleanup.push(async () => void site.close());
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    cleanup.push(() => browser.close());
    const page = await browser.newPage();
    await page.goto(`http://localhost:${(site.address() as AddressInfo).port}/`);
    const seen = await page.evaluate(async (url) => {
      const base = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer alice',
      };
      const post = (body: unknown, headers: Record<string, string> = {}) =>
        fetch(url, { method: 'POST', headers: { ...base, ...headers }, body: JSON.stringify(body) });
      try {
        const init = await post({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
        });
        const session = init.headers.get('mcp-session-id');
        await init.text();
        if (!session) return { error: 'no session id readable' };
        const on = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
        await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, on)).text();
        const listed = await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, on)).text();
        return { session, listed };
      } catch (error) {
        return { error: String(error) };
      }
    }, s.url);
    expect(seen).not.toHaveProperty('error');
    expect((seen as { listed: string }).listed).toContain('"deploy"');
  }, 60_000);
});
