import { describe, expect, it } from 'vitest';
import { readConfig } from '../lib/config';

const base = { ELICITKIT_DATA: '/tmp/elicitkit-config-test' };
const servers = (value: unknown) => ({ ...base, ELICITKIT_SERVERS: JSON.stringify(value) });

describe('the web app configuration (environment)', () => {
  it('defaults to the bundled opsdesk on the 2026 revision, no model, ten-minute questions, no Redis', () => {
    const c = readConfig(base);
    expect(c.servers).toHaveLength(1);
    expect(c.servers[0]).toEqual({ name: 'opsdesk', kind: 'opsdesk', revision: '2026-07-28' });
    expect(c.dataDir).toBe('/tmp/elicitkit-config-test');
    expect(c).toMatchObject({ chatIdleMs: 1_800_000, maxChatsPerAddress: 20, maxChats: 2000, redisUrl: undefined });
    expect(c.model).toBeUndefined();
    expect(c.questionTimeoutMs).toBe(600_000);
  });

  it('reads an OpenAI-compatible model; a model name alone turns nothing on', () => {
    expect(
      readConfig({ ...base, OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', ELICITKIT_MODEL: 'qwen3' }).model,
    ).toEqual({
      baseURL: 'http://127.0.0.1:11434/v1',
      apiKey: undefined,
      model: 'qwen3',
    });
    expect(readConfig({ ...base, OPENAI_API_KEY: 'sk-x' }).model).toMatchObject({
      baseURL: 'https://api.openai.com/v1',
      apiKey: 'sk-x',
    });
    expect(readConfig({ ...base, ELICITKIT_MODEL: 'qwen3' }).model).toBeUndefined();
    // There is no built-in test model: tests point OPENAI_BASE_URL at an endpoint of their own.
    expect(readConfig({ ...base, ELICITKIT_MODEL: 'mock', ELICITKIT_ALLOW_MOCK_MODEL: '1' }).model).toBeUndefined();
  });

  it('reads the chat limits and REDIS_URL, and refuses values that cannot work', () => {
    expect(
      readConfig({
        ...base,
        ELICITKIT_CHAT_IDLE_MS: '5000',
        ELICITKIT_MAX_CHATS_PER_ADDRESS: '3',
        ELICITKIT_MAX_CHATS: '10',
        REDIS_URL: 'redis://127.0.0.1:6379/2',
      }),
    ).toMatchObject({ chatIdleMs: 5000, maxChatsPerAddress: 3, maxChats: 10, redisUrl: 'redis://127.0.0.1:6379/2' });
    expect(() => readConfig({ ...base, ELICITKIT_MAX_CHATS_PER_ADDRESS: '0' })).toThrow(
      'ELICITKIT_MAX_CHATS_PER_ADDRESS must be a whole number from 1',
    );
    expect(() => readConfig({ ...base, ELICITKIT_CHAT_IDLE_MS: '1.5e3' })).toThrow('ELICITKIT_CHAT_IDLE_MS');
    expect(() => readConfig({ ...base, ELICITKIT_MAX_CHATS: 'lots' })).toThrow('ELICITKIT_MAX_CHATS must');
    expect(() => readConfig({ ...base, REDIS_URL: 'http://127.0.0.1:6379' })).toThrow('REDIS_URL must be a redis://');
    expect(() => readConfig({ ...base, REDIS_URL: 'not a url' })).toThrow('REDIS_URL must be a redis://');
  });

  it('reads ELICITKIT_SECRETS: warn by default, decline on request, anything else refused', () => {
    expect(readConfig(base).secrets).toBe('warn');
    expect(readConfig({ ...base, ELICITKIT_SECRETS: 'decline' }).secrets).toBe('decline');
    expect(() => readConfig({ ...base, ELICITKIT_SECRETS: 'block' })).toThrow(
      'ELICITKIT_SECRETS must be "decline" or "warn", not "block"',
    );
  });

  it('reads servers from ELICITKIT_SERVERS', () => {
    const c = readConfig(
      servers([
        {
          name: 'ops',
          url: 'http://127.0.0.1:7777/mcp',
          headers: { authorization: 'Bearer ek_x' },
          revision: '2025-11-25',
        },
        { command: ['node', 'server.js', '--flag'] },
      ]),
    );
    expect(c.servers).toEqual([
      {
        name: 'ops',
        kind: 'http',
        url: 'http://127.0.0.1:7777/mcp',
        headers: { authorization: 'Bearer ek_x' },
        revision: '2025-11-25',
      },
      { name: 'server2', kind: 'stdio', command: 'node', args: ['server.js', '--flag'], revision: 'auto' },
    ]);
  });

  it('takes the revision by name, or by the deprecated era; neither is auto, as on the command line', () => {
    const revisions = readConfig(
      servers([
        { command: ['a'], revision: '2025-06-18' },
        { command: ['b'], revision: '2025-11-25' },
        { command: ['c'], revision: '2026-07-28' },
        { command: ['d'], revision: 'auto' },
        { command: ['e'], era: 'legacy' },
        { command: ['f'], era: 'modern' },
        { command: ['g'] },
      ]),
    ).servers.map((s) => s.revision);
    expect(revisions).toEqual(['2025-06-18', '2025-11-25', '2026-07-28', 'auto', '2025-11-25', '2026-07-28', 'auto']);
  });

  it.each([
    ['not JSON', '{', /not valid JSON/],
    ['an empty array', '[]', /non-empty JSON array/],
    ['a non-object entry', '[1]', /\[0\] must be an object/],
    ['neither url nor command', '[{"name":"x"}]', /needs "url".*or "command"/],
    ['an empty command', '[{"command":[]}]', /needs "url".*or "command"/],
    ['a non-string command part', '[{"command":["node",3]}]', /needs "url".*or "command"/],
    ['a non-http url', '[{"url":"file:///etc/passwd"}]', /\.url must be an http\(s\) URL/],
    ['bad headers', '[{"url":"http://x/mcp","headers":{"a":1}}]', /headers must be an object of strings/],
    [
      'a url carrying credentials (fetch refuses it)',
      '[{"url":"http://me:pw@x/mcp"}]',
      /\[0\]\.url must not carry a user name or password: send credentials in "headers"/,
    ],
    [
      'an unknown era',
      '[{"command":["x"],"era":"2027"}]',
      /\.era \(deprecated: use ELICITKIT_SERVERS\[0\]\.revision\) must be legacy, modern or auto, not "2027"/,
    ],
    [
      'an unknown revision',
      '[{"command":["x"],"revision":"2024-11-05"}]',
      /\.revision must be 2025-06-18, 2025-11-25, 2026-07-28, auto, not "2024-11-05"/,
    ],
    ['a revision that is not text', '[{"command":["x"],"revision":["auto"]}]', /\.revision must be .*not \["auto"\]/],
    [
      'both revision and era',
      '[{"command":["x"],"revision":"auto","era":"legacy"}]',
      /give ELICITKIT_SERVERS\[0\]\.revision or ELICITKIT_SERVERS\[0\]\.era, not both/,
    ],
    ['a name with __', '[{"name":"a__b","command":["x"]}]', /name must be/],
    ['a duplicate name', '[{"name":"a","command":["x"]},{"name":"a","command":["y"]}]', /"a" is used twice/],
  ])('refuses ELICITKIT_SERVERS with %s, saying what is wrong', (_what, raw, message) => {
    expect(() => readConfig({ ...base, ELICITKIT_SERVERS: raw })).toThrow(message);
  });

  it('never repeats a piece of a header or a password in the message', () => {
    // V8 quotes the text around a JSON mistake: here, part of the token.
    const broken = '[{"name":"ops","url":"http://x/mcp","headers":{"authorization":Bearer ek_secret_token"}}]';
    expect(() => readConfig({ ...base, ELICITKIT_SERVERS: broken })).toThrow(
      /^ELICITKIT_SERVERS is not valid JSON: Unexpected token 'B'$/,
    );
    expect(() => readConfig({ ...base, REDIS_URL: 'http://user:hunter2@127.0.0.1:6379' })).toThrow(
      /^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL, not http:\/\/…$/,
    );
    expect(() => readConfig({ ...base, REDIS_URL: 'hunter2' })).toThrow(/URL \(it is not a URL\)$/);
  });

  it('reads how long connecting to an MCP server may take (ELICITKIT_CONNECT_TIMEOUT_MS)', () => {
    expect(readConfig(base).connectTimeoutMs).toBe(30_000);
    expect(readConfig({ ...base, ELICITKIT_CONNECT_TIMEOUT_MS: '5000' }).connectTimeoutMs).toBe(5000);
    expect(() => readConfig({ ...base, ELICITKIT_CONNECT_TIMEOUT_MS: '500' })).toThrow(
      'ELICITKIT_CONNECT_TIMEOUT_MS must be a whole number from 1000 to 600000, not "500"',
    );
  });

  it('reads the lease of a chat’s turn mark in Redis (ELICITKIT_TURN_LEASE_MS)', () => {
    expect(readConfig(base).turnLeaseMs).toBe(30_000);
    expect(readConfig({ ...base, ELICITKIT_TURN_LEASE_MS: '1000' }).turnLeaseMs).toBe(1000);
    expect(() => readConfig({ ...base, ELICITKIT_TURN_LEASE_MS: '999' })).toThrow(
      'ELICITKIT_TURN_LEASE_MS must be a whole number from 1000 to 600000, not "999"',
    );
  });

  it('refuses a timeout that is not whole milliseconds in range, and an unknown language', () => {
    for (const bad of ['soon', '10.5', '999', '86400001']) {
      expect(() => readConfig({ ...base, ELICITKIT_QUESTION_TIMEOUT_MS: bad })).toThrow(
        /ELICITKIT_QUESTION_TIMEOUT_MS/,
      );
    }
    expect(readConfig({ ...base, ELICITKIT_QUESTION_TIMEOUT_MS: '2000' }).questionTimeoutMs).toBe(2000);
    expect(() => readConfig({ ...base, ELICITKIT_LANG: 'fr' })).toThrow(/ELICITKIT_LANG must be "en" or "zh"/);
    expect(readConfig({ ...base, LANG: 'zh_CN.UTF-8' }).lang).toBe('zh');
  });
});
