import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { localeFromHeader, pickLocale } from '../lib/locale';
import { checkModel } from '../lib/model-check';
import { classifyModelError } from '../lib/model-errors';

// Real provider calls (the AI SDK's OpenAI-compatible provider) against real sockets on loopback.
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function endpoint(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** A port that was free a moment ago and has nothing listening now. */
async function deadPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}/v1`;
}

const answering = (status: number, body: unknown) =>
  endpoint((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });

const model = (baseURL: string) => ({ baseURL, apiKey: 'k', model: 'm-1' });

describe('model errors are classified by type and code, with the variable to fix', () => {
  it('a refused connection points at OPENAI_BASE_URL', async () => {
    const url = await deadPort();
    const check = await checkModel(model(url), 'en');
    expect(check).toMatchObject({ ok: false, kind: 'unreachable', variable: 'OPENAI_BASE_URL' });
    expect(check.ok ? '' : check.message).toContain(url);
    expect(check.ok ? '' : check.message).toContain('ECONNREFUSED');
  });

  it('a name that does not resolve points at OPENAI_BASE_URL', async () => {
    const check = await checkModel(model('http://no-such-host.invalid/v1'), 'en');
    expect(check).toMatchObject({ ok: false, kind: 'unreachable', variable: 'OPENAI_BASE_URL' });
  });

  it.each([401, 403])('HTTP %i points at OPENAI_API_KEY', async (status) => {
    const url = await answering(status, { error: { message: 'nope', type: 'invalid_request_error' } });
    const check = await checkModel(model(url), 'en');
    expect(check).toMatchObject({ ok: false, kind: 'unauthorized', variable: 'OPENAI_API_KEY' });
  });

  it('an unknown model (404, or the model_not_found code on another status) points at ELICITKIT_MODEL', async () => {
    const plain = await answering(404, { error: { message: 'model "m-1" not found, try pulling it first' } });
    expect(await checkModel(model(plain), 'en')).toMatchObject({ kind: 'unknown-model', variable: 'ELICITKIT_MODEL' });
    const coded = await answering(400, { error: { message: 'x', code: 'model_not_found' } });
    const check = await checkModel(model(coded), 'zh');
    expect(check).toMatchObject({ kind: 'unknown-model', variable: 'ELICITKIT_MODEL' });
    expect(check.ok ? '' : check.message).toContain('不认识模型 "m-1"');
  });

  it('rate limits and server failures are named, without blaming a variable', async () => {
    expect(await checkModel(model(await answering(429, {})), 'en')).toMatchObject({ kind: 'rate-limited' });
    const failed = await checkModel(model(await answering(502, {})), 'en');
    expect(failed).toMatchObject({ kind: 'endpoint-error' });
    expect(failed).not.toHaveProperty('variable');
  });

  it('prose alone decides nothing: a 400 saying "model not found" is not an unknown model', () => {
    expect(classifyModelError(new Error('model not found'))).toEqual({ kind: 'other' });
  });

  it('a timeout (the socket error code, anywhere in the cause chain) points at OPENAI_BASE_URL', () => {
    const cause = Object.assign(new Error('connect timeout'), { code: 'UND_ERR_CONNECT_TIMEOUT' });
    expect(classifyModelError(new TypeError('fetch failed', { cause }))).toMatchObject({
      kind: 'timeout',
      variable: 'OPENAI_BASE_URL',
    });
  });

  it('an endpoint that never answers is a timeout', async () => {
    const url = await endpoint(() => undefined);
    expect(await checkModel(model(url), 'en', 300)).toMatchObject({ kind: 'timeout', variable: 'OPENAI_BASE_URL' });
  });

  it('a working endpoint passes the check', async () => {
    const url = await endpoint((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 1,
          model: 'm-1',
          choices: [{ index: 0, message: { role: 'assistant', content: 'p' }, finish_reason: 'length' }],
        }),
      );
    });
    expect(await checkModel(model(url), 'en')).toMatchObject({ ok: true });
    expect(await checkModel(undefined, 'en')).toMatchObject({ ok: false, kind: 'not-configured' });
  });
});

describe('the page language', () => {
  it('follows the browser and falls back to English', () => {
    expect(pickLocale(['zh-CN', 'en'])).toBe('zh');
    expect(pickLocale(['fr', 'en-GB'])).toBe('en');
    expect(pickLocale(['fr'])).toBe('en');
    expect(localeFromHeader('en-US,zh;q=0.9')).toBe('en');
    expect(localeFromHeader('fr;q=1, zh-TW;q=0.8, en;q=0.5')).toBe('zh');
    expect(localeFromHeader('zh;q=0, en')).toBe('en');
    expect(localeFromHeader(undefined)).toBe('en');
  });
});
