/**
 * The routing shortcut never disagrees with the SDK: every body below is routed by
 * `routesToLegacy` and by the SDK's own `isLegacyRequest`, with each protocol-version header a
 * client might send, and the answers must match. The shortcut must also answer (not defer) the two
 * shapes a 2025 call sends on every POST, or it saves nothing.
 */
import { isJSONRPCResultResponse, isLegacyRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { isResultResponse, legacyByShape, routesToLegacy } from './route.js';

const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'deploy', arguments: { service: 'a' } } };
const envelope = {
  [PROTOCOL_VERSION_META_KEY]: '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
};

const BODIES: Record<string, unknown> = {
  'a tools/call': call,
  'a tools/call with other _meta': { ...call, params: { ...call.params, _meta: { progressToken: 1 } } },
  'a tools/call with a 2026 envelope': { ...call, params: { ...call.params, _meta: envelope } },
  'a tools/call with a bad envelope': {
    ...call,
    params: { ...call.params, _meta: { [PROTOCOL_VERSION_META_KEY]: 5 } },
  },
  'a tools/call with an old claim': {
    ...call,
    params: { ...call.params, _meta: { [PROTOCOL_VERSION_META_KEY]: '2025-11-25' } },
  },
  'a request whose params are not an object': { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' },
  'a request with _meta not an object': { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: [1] } },
  'an initialize': {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  },
  'an initialize with a modern envelope': { jsonrpc: '2.0', id: 0, method: 'initialize', params: { _meta: envelope } },
  'an answer (result response)': { jsonrpc: '2.0', id: 3, result: { action: 'accept', content: { env: 'dev' } } },
  'an error response': { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'no' } },
  'a result that is not an object': { jsonrpc: '2.0', id: 3, result: 5 },
  'a response with result and error': { jsonrpc: '2.0', id: 3, result: {}, error: { code: 1, message: 'x' } },
  'a response with a method too': { jsonrpc: '2.0', id: 3, method: 'x', result: {} },
  'a response with a bad jsonrpc': { jsonrpc: '1.0', id: 3, result: {} },
  'an error without a code': { jsonrpc: '2.0', id: 3, error: { message: 'x' } },
  'a notification': { jsonrpc: '2.0', method: 'notifications/initialized' },
  'a notification with an envelope': { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: envelope } },
  'a request with an unknown key': { ...call, extra: true },
  'a request with a null id': { jsonrpc: '2.0', id: null, method: 'ping' },
  'a request with a numeric method': { jsonrpc: '2.0', id: 1, method: 5 },
  'no jsonrpc at all': { hello: 'world' },
  'an empty object': {},
  'a batch': [call, { jsonrpc: '2.0', method: 'notifications/initialized' }],
  'an empty batch': [],
  'a number': 42,
  'a string': 'tools/call',
  null: null,
  '__proto__ as a key': JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"result":{}}}'),
};

const HEADERS: (string | undefined)[] = [
  undefined,
  '2025-11-25',
  '2025-06-18',
  '2024-11-05',
  '2026-07-28',
  '2027-01-01',
  'junk',
];

function post(body: unknown, version: string | undefined): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (version) headers['mcp-protocol-version'] = version;
  return new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
}

describe('routesToLegacy', () => {
  for (const [name, body] of Object.entries(BODIES)) {
    it(`agrees with the SDK's isLegacyRequest for ${name}, with every version header`, async () => {
      for (const version of HEADERS) {
        const sdk = await isLegacyRequest(post(body, version), body);
        expect({ version, legacy: await routesToLegacy(post(body, version), body) }).toEqual({ version, legacy: sdk });
      }
    });
  }

  it('settles a 2025 tools/call and an answer without the SDK, and defers what it cannot prove', () => {
    expect(legacyByShape(BODIES['a tools/call'], null)).toBe(true);
    expect(legacyByShape(BODIES['a tools/call'], '2025-11-25')).toBe(true);
    expect(legacyByShape(BODIES['an answer (result response)'], '2025-11-25')).toBe(true);
    expect(legacyByShape(BODIES['an error response'], null)).toBe(true);
    expect(legacyByShape(BODIES['a result that is not an object'], null)).toBe(false);
    expect(legacyByShape(BODIES['a tools/call with a 2026 envelope'], '2026-07-28')).toBeUndefined();
    expect(legacyByShape(BODIES['a tools/call'], '2026-07-28')).toBeUndefined();
    expect(legacyByShape(BODIES['a notification'], null)).toBeUndefined();
    expect(legacyByShape(BODIES['a batch'], null)).toBeUndefined();
  });
});

describe('isResultResponse', () => {
  const ok = { jsonrpc: '2.0', id: 3, result: { action: 'accept', content: { env: 'dev' } } };
  const IDS: unknown[] = [
    0,
    -1,
    7,
    -0,
    1.5,
    1e20,
    2 ** 53,
    2 ** 53 - 1,
    -(2 ** 53),
    '',
    'q-1',
    null,
    true,
    {},
    [],
    undefined,
  ];
  const RESULTS: unknown[] = [
    {},
    { action: 'decline' },
    { _meta: {} },
    { _meta: { progressToken: 1, other: [1] } },
    { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x', version: '1' } } },
    { _meta: { 'io.modelcontextprotocol/serverInfo': 5 } },
    { _meta: null },
    { _meta: [] },
    { _meta: 'x' },
    { _meta: 0 },
    { _meta: undefined },
    [],
    null,
    5,
    'x',
    true,
    undefined,
  ];
  const shapes: Record<string, unknown>[] = [
    ok,
    ...IDS.map((id) => ({ ...ok, id })),
    ...RESULTS.map((result) => ({ ...ok, result })),
    ...['2.0', '2', '1.0', 2, null, undefined].map((jsonrpc) => ({ ...ok, jsonrpc })),
    { id: 3, result: {} },
    { jsonrpc: '2.0', result: {} },
    { jsonrpc: '2.0', id: 3 },
    { ...ok, method: 'x' },
    { ...ok, error: { code: 1, message: 'x' } },
    { ...ok, extra: 1 },
    { ...ok, extra: undefined },
    JSON.parse('{"jsonrpc":"2.0","id":1,"result":{},"__proto__":{}}'),
    JSON.parse('{"jsonrpc":"2.0","id":1,"__proto__":{"x":1},"result":{"__proto__":{"_meta":5}}}'),
    JSON.parse('{"jsonrpc":"2.0","id":1,"result":{"_meta":{"__proto__":null}}}'),
  ];

  it('answers as the SDK does for every shape', () => {
    for (const body of shapes)
      expect({ body, yes: isResultResponse(body) }).toEqual({ body, yes: isJSONRPCResultResponse(body) });
  });

  it('says yes to a 2025 answer and no to what the schema refuses', () => {
    expect(isResultResponse(ok)).toBe(true);
    expect(isResultResponse({ ...ok, id: 1.5 })).toBe(false);
    expect(isResultResponse({ ...ok, result: { _meta: null } })).toBe(false);
    expect(isResultResponse({ ...ok, extra: 1 })).toBe(false);
  });
});
