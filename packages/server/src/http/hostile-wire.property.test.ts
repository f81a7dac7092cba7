/**
 * Hostile bytes on the wire, generated: `createHttpHandler`'s Web face (the real SDK behind it)
 * handed requests from anything well-formed to anything a fuzzer makes — 2026-07-28 rounds whose
 * answers, `requestState` and envelope are mutated from a real first round, 2025 requests with
 * and without a session, odd methods, ids, headers and prototype keys. Whatever comes, the handler
 * answers with a status a client can act on, never an internal error (500 or -32603) for what the
 * client sent, within a bound, and a plain call still works afterwards: nothing it was sent broke
 * the endpoint or lost what others had.
 */

import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog } from '../../test/audit-log.js';
import { createStore, fixtureTools } from '../../test/fixture-tools.js';
import { createElicitkit } from '../kit.js';
import { createHttpHandler, type HttpHandler } from './handler.js';

const URL_ = 'http://127.0.0.1/mcp';
const TOOLS = ['deploy', 'tags', 'register', 'three_asks', 'reask_after_decline', 'work_after_cancel'] as const;
const CAPABILITIES = { elicitation: { form: {}, url: {} } };
const envelope = (capabilities: unknown = CAPABILITIES) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

let handler: HttpHandler;
const store = createStore();
beforeAll(() => {
  // A page accepted but never finished is waited on only briefly: the fuzzer accepts many.
  const kit = createElicitkit({ audit: auditLog().sink, timeoutMs: 2_000, urlWaitMs: 50, pollMs: 10 });
  handler = createHttpHandler(() => kit.createServer({ name: 'fuzz', version: '1' }, fixtureTools(store)));
});
afterAll(async () => {
  await handler.close();
});

/** Keys that trip naive code. */
const hostileKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', '0');
const key = fc.oneof(
  fc.constantFrom('env', 'prod', 'tags', 'password', 'confirmed', 'ticket'),
  hostileKey,
  fc.string(),
);
const json = fc.jsonValue({ maxDepth: 4 });
const answerLike = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      { action: 'accept', content: { env: 'dev' } },
      { action: 'accept', content: { env: 'prod' } },
      { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } },
      { action: 'accept', content: { confirmed: false, ticket: 'x' } },
      { action: 'accept', content: { tags: ['x', 'y'] } },
      { action: 'accept', content: { tags: [] } },
      { action: 'accept', content: { choice: 'a' } },
      { action: 'accept', content: { choice: 'c' } },
      { action: 'accept' },
      { action: 'decline' },
      { action: 'cancel' },
    ),
  },
  fc.record({ action: fc.constantFrom('accept', 'decline', 'cancel', 'maybe', ''), content: fc.option(json) }),
  fc.record({
    action: fc.constant('accept'),
    content: fc.dictionary(key, fc.oneof(json, fc.constantFrom('dev', 'prod', 'x'), fc.array(fc.string()))),
  }),
  json,
);
const responses = fc.oneof(fc.dictionary(key, answerLike, { maxKeys: 6 }), json);

/** What becomes of a real requestState: kept (most often), cut, a character changed, doubled, replaced. */
type Spoil = 'keep' | 'double' | { cut: number } | { at: number; c: string } | { other: unknown };
const spoil: fc.Arbitrary<Spoil> = fc.oneof(
  { weight: 4, arbitrary: fc.constant('keep' as const) },
  fc.constant('double' as const),
  fc.record({ cut: fc.nat() }),
  fc.record({ at: fc.nat(), c: fc.constantFrom('A', '_', '-', '.', '~', '%') }),
  fc.record({ other: fc.oneof(fc.string(), json) }),
);
function spoiled(state: string, how: Spoil): unknown {
  if (how === 'keep') return state;
  if (how === 'double') return `${state}.${state}`;
  if ('cut' in how) return state.slice(0, how.cut % Math.max(1, state.length));
  if ('at' in how) {
    const at = how.at % Math.max(1, state.length);
    return state.slice(0, at) + how.c + state.slice(at + 1);
  }
  return how.other;
}

interface Sent {
  status: number;
  /** Every JSON-RPC message the response carried (one JSON body, or the SSE stream's events). */
  messages: unknown[];
}

/** Sends one request and reads its whole response, or fails when it does not end within 10 s. */
async function send(body: unknown, headers: Record<string, string>): Promise<Sent> {
  const request = new Request(URL_, {
    method: 'POST',
    headers: {
      host: '127.0.0.1',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const read = (async () => {
    const response = await handler.fetch(request);
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    const messages = type.startsWith('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data:') && line.length > 5)
          .map((line) => JSON.parse(line.slice(5)))
      : text.length > 0 && type.includes('json')
        ? [JSON.parse(text)]
        : [];
    return { status: response.status, messages };
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no complete response in 10 s to ${JSON.stringify(body)}`)), 10_000);
  });
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}

function modernHeaders(method: string, name?: string): Record<string, string> {
  return { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) };
}

/**
 * What a JavaScript engine's own errors say (V8's messages): the SDK turns what a tool throws into
 * an `isError` result carrying the message only, so a crash inside the kit comes back looking like
 * a tool's refusal. The kit's own refusals (a usage error of a fixture tool written wrong on
 * purpose, a state that is not the kit's) never read like these.
 */
const CRASHED =
  /\b(TypeError|ReferenceError|RangeError|SyntaxError)\b|Cannot (read|set) propert|Cannot (convert|destructure|create)|is not (a function|iterable|defined|a constructor)|Maximum call stack|Unexpected (token|end of JSON)|Invalid (array length|time value)|\[object Object\]|\bundefined\b|\bNaN\b/;

/**
 * The shape of the SDK's answer to params its schema refuses (see `invalid-params.ts`): -32603,
 * zod's issues as the message, each with a path from `params`.
 */
function sdkParamsGap(error: { code?: unknown; message?: unknown } | undefined): boolean {
  if (error?.code !== -32603 || typeof error.message !== 'string' || !error.message.startsWith('[')) return false;
  try {
    const issues = JSON.parse(error.message) as { path?: unknown[] }[];
    return issues.length > 0 && issues.every((issue) => Array.isArray(issue.path) && issue.path[0] === 'params');
  } catch {
    return false;
  }
}

/**
 * No answer to what the client sent may be an internal error — a 500, a -32603, or a tool result
 * carrying a thrown error's text: that is the server failing, not the request.
 */
function expectNoInternalError(sent: Sent, what: unknown) {
  const context = JSON.stringify(what).slice(0, 2_000);
  expect(sent.status, context).not.toBeGreaterThanOrEqual(500);
  for (const message of sent.messages) {
    const shown = `${context}\n${JSON.stringify(message)}`;
    const { error, result } = (message ?? {}) as {
      error?: { code?: unknown };
      result?: { isError?: boolean; structuredContent?: { status?: unknown }; content?: { text?: string }[] };
    };
    expect(error?.code, shown).not.toBe(-32603);
    if (result?.isError) {
      const text = result.content?.map((c) => c.text ?? '').join('\n') ?? '';
      expect(text, shown).not.toMatch(CRASHED);
    }
  }
}

let nextId = 1;

/** A real first round of `tool`, as a 2026-07-28 client makes it: its requestState and question keys. */
async function firstRound(tool: string, args: unknown) {
  const id = nextId++;
  const sent = await send(
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args, _meta: envelope() } },
    modernHeaders('tools/call', tool),
  );
  const result = (sent.messages[0] as { result?: { requestState?: unknown; inputRequests?: object } } | undefined)
    ?.result;
  return {
    sent,
    state: typeof result?.requestState === 'string' ? result.requestState : undefined,
    keys: Object.keys(result?.inputRequests ?? {}),
  };
}

/** A plain round trip still works: the endpoint serves on, and what was committed is still there. */
async function stillServes() {
  const first = await firstRound('deploy', { service: 'still' });
  expect(first.state).toBeTypeOf('string');
  const id = nextId++;
  const sent = await send(
    {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'deploy',
        arguments: { service: 'still' },
        inputResponses: { env: { action: 'accept', content: { env: 'dev' } } },
        requestState: first.state,
        _meta: envelope(),
      },
    },
    modernHeaders('tools/call', 'deploy'),
  );
  const result = (sent.messages[0] as { result?: { structuredContent?: { status?: string } } }).result;
  expect(result?.structuredContent?.status).toBe('done');
}

describe('hostile bytes on the wire', () => {
  it('2026-07-28 rounds with answers, requestState and envelope spoiled from a real first round', async () => {
    const call = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom<[string, unknown]>(
          ['deploy', { service: 'api' }],
          ['deploy', { service: 'api', env: 'prod' }],
          ['tags', {}],
          ['register', { flow: 'signup' }],
          ['three_asks', {}],
          ['reask_after_decline', {}],
          ['work_after_cancel', {}],
        ),
      },
      fc.tuple(fc.constantFrom<string>(...TOOLS), fc.oneof(fc.dictionary(key, json), json)),
    );
    await fc.assert(
      fc.asyncProperty(
        call,
        fc.record({
          responses: fc.option(responses, { nil: undefined }),
          useKeys: fc.boolean(),
          answer: answerLike,
          spoil,
          changeArgs: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, fc.constant(true)),
          meta: fc.oneof(
            { weight: 4, arbitrary: fc.constant(envelope()) },
            fc.constant(envelope({})),
            json.map((c) => envelope(c)),
            fc.dictionary(key, json),
            json,
          ),
          extra: fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, fc.dictionary(key, json, { maxKeys: 3 })),
        }),
        async ([tool, given], round) => {
          const first = await firstRound(tool, given);
          expectNoInternalError(first.sent, { tool, given });
          const spoilt = spoiled(first.state ?? 'none', round.spoil);
          const inputResponses = round.useKeys
            ? Object.fromEntries(first.keys.map((k) => [k, round.answer]))
            : round.responses;
          const params = {
            ...round.extra,
            name: tool,
            arguments: round.changeArgs ? { service: 'other' } : given,
            ...(inputResponses === undefined ? {} : { inputResponses }),
            requestState: spoilt,
            _meta: round.meta,
          };
          const body = { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params };
          expectNoInternalError(await send(body, modernHeaders('tools/call', tool)), body);
        },
      ),
      { numRuns: 300 },
    );
    await stillServes();
  }, 120_000);

  it('any method, id, params and headers, with or without a session', async () => {
    const sessionId = await sessionOf();
    expect(sessionId).not.toBe('');
    const method = fc.oneof(
      fc.constantFrom(
        'tools/call',
        'tools/list',
        'initialize',
        'server/discover',
        'subscriptions/listen',
        'ping',
        'prompts/get',
        'resources/read',
        'notifications/cancelled',
        'notifications/initialized',
        'completion/complete',
        'logging/setLevel',
      ),
      fc.string(),
    );
    const id = fc.oneof(fc.integer(), fc.string(), fc.constant(null), json);
    const message = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), json),
        id,
        method,
        params: fc.oneof(
          json,
          fc.record({
            name: fc.oneof(fc.constantFrom(...TOOLS), fc.string()),
            arguments: fc.oneof(fc.dictionary(key, json), json),
            _meta: fc.oneof(fc.constant(envelope()), json),
            inputResponses: responses,
            requestState: fc.oneof(fc.string(), json),
          }),
        ),
      },
      { requiredKeys: ['method'] },
    );
    const headers = fc.record(
      {
        'mcp-protocol-version': fc.oneof(
          fc.constantFrom('2026-07-28', '2025-11-25', '2025-06-18', '2024-11-05', ''),
          fc.string({ maxLength: 20 }),
        ),
        'mcp-method': fc.oneof(method, fc.constant('')),
        'mcp-name': fc.string({ maxLength: 20 }),
        session: fc.constantFrom('ours', 'unknown'),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(message, fc.array(message, { maxLength: 3 }), json, fc.string()),
        headers,
        async (body, h) => {
          const { session, ...rest } = h;
          const sent: Record<string, string> = {};
          // Header values a Request refuses (a line break) are not what a server is sent.
          for (const [name, value] of Object.entries(rest)) if (!/[\r\n\0]/.test(value)) sent[name] = value;
          if (session === 'ours') sent['mcp-session-id'] = sessionId;
          if (session === 'unknown') sent['mcp-session-id'] = 'not-a-session';
          expectNoInternalError(await send(body, sent), { body, headers: sent });
        },
      ),
      { numRuns: 400 },
    );
    await stillServes();
  }, 120_000);
});

describe('SDK gap (invalid-params.ts)', () => {
  it('a tools/list whose params fail their schema is answered -32603 by the SDK itself (fails once it says -32602)', async () => {
    const raw = new McpServer({ name: 'raw', version: '1' }, { capabilities: { tools: {} } });
    raw.registerTool('noop', { description: 'noop' }, async () => ({ content: [] }));
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await raw.connect(serverSide);
    const answers: unknown[] = [];
    clientSide.onmessage = (m) => answers.push(m);
    await clientSide.start();
    await clientSide.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'gap', version: '1' } },
    });
    await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await clientSide.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 5 } });
    await expect.poll(() => answers.length).toBe(2);
    const error = (answers[1] as { error?: { code?: unknown; message?: unknown } }).error;
    expect(error?.code).toBe(-32603);
    expect(sdkParamsGap(error)).toBe(true);
    await raw.close();
  });
});

/** A 2025 session of its own, to send the fuzzer's requests on. */
async function sessionOf(): Promise<string> {
  const response = await handler.fetch(
    new Request(URL_, {
      method: 'POST',
      headers: {
        host: '127.0.0.1',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: CAPABILITIES,
          clientInfo: { name: 'fuzz', version: '1' },
        },
      }),
    }),
  );
  await response.text();
  const id = response.headers.get('mcp-session-id') ?? '';
  await handler.fetch(
    new Request(URL_, {
      method: 'POST',
      headers: {
        host: '127.0.0.1',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    }),
  );
  return id;
}
