import type { JSONRPCMessage, McpServer, RequestId, Transport } from '@modelcontextprotocol/server';
import { invalidParamsNamed } from './invalid-params.js';
import { callText } from './state.js';

/**
 * The SDK checks a `requestState` in one `verify` per server, before the tool runs, and answers a
 * state it refuses with JSON-RPC -32602 (`invalid_request_state`), as the 2026-07-28 spec asks of a
 * state that fails verification. But `verify` is not told which tool the request calls, nor with
 * which arguments, and whatever a tool handler throws reaches the client as an error *result*.
 * So a state the kit could only judge knowing the call — any text not in the kit's format sent to
 * a kit tool (a hand-written tool beside it keeps such states), a kit state issued for another
 * tool or other arguments — was refused by the tool as an `isError` result, while a tampered one
 * got -32602. Here a kit server notes, as each `tools/call` carrying a state arrives, which kit
 * tool it calls and with what arguments; `verify` reads that note (`callOf`) and refuses every bad
 * state for a kit tool the same way.
 */
export interface NotedCall {
  tool: string;
  /** The arguments as sent. */
  args: unknown;
}

/**
 * Notes by the request's id and its state, with how many requests in flight carry both (a
 * duplicate sent twice at once, on two connections).
 */
const noted = new Map<string, { call: NotedCall | typeof AMBIGUOUS; text: string | undefined; count: number }>();
const AMBIGUOUS = Symbol('ambiguous');
/** Each kit server's tools, by name: whether the tool takes arguments (has an input schema). */
const watched = new WeakMap<McpServer, Map<string, boolean>>();

function keyOf(id: RequestId, state: string): string {
  return `${typeof id}:${String(id)}\0${state}`;
}

/**
 * The kit tool (and arguments) the request `id` carrying `state` calls on a kit server, if it is
 * one; `AMBIGUOUS` when two requests in flight with the same id and state call different things
 * (the caller then is refused, never guessed for).
 */
export function callOf(id: RequestId, state: string): NotedCall | typeof AMBIGUOUS | undefined {
  return noted.get(keyOf(id, state))?.call;
}

export { AMBIGUOUS };

/**
 * The seam between a kit server and each transport it is connected to (a session's, a 2026-07-28
 * request's, stdio), put in once per server — around the connection it already has, too, when its
first kit tool is registered after it connected: every message the transport receives passes `note`,
 * every one it sends `forget`, then `invalidParamsNamed` (invalid-params.ts). Returns the server's
 * set of watched kit tools, by name, with whether each takes arguments (has an input schema): a
 * tool without one is handed no arguments (`{}`), whatever was sent, and its states are bound to
 * those. A note lives until its request's response is sent.
 */
export function seam(server: McpServer): Map<string, boolean> {
  const known = watched.get(server);
  if (known) return known;
  const tools = new Map<string, boolean>();
  watched.set(server, tools);
  const connect = server.connect.bind(server);
  server.connect = (transport: Transport) => {
    // The SDK keeps a handler already set on the transport and calls it before its own, for each
    // message as it arrives and when the transport closes.
    watch(transport, tools);
    return connect(transport);
  };
  // A server connected before its first kit tool was registered (tools that come and go): the
  // connection it already has gets the seam too, around the SDK's own handlers.
  const connected = server.server.transport;
  if (connected) watch(connected, tools);
  return tools;
}

function watch(transport: Transport, tools: Map<string, boolean>): void {
  const mine = new Map<RequestId, string>();
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    note(message, tools, mine);
    onmessage?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    forget(message, mine);
    return send(invalidParamsNamed(message), options);
  };
  const close = transport.onclose;
  transport.onclose = () => {
    for (const key of mine.values()) release(key);
    mine.clear();
    close?.();
  };
}

function note(message: JSONRPCMessage, tools: Map<string, boolean>, mine: Map<RequestId, string>): void {
  if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return;
  const params = message.params as { name?: unknown; arguments?: unknown; requestState?: unknown } | undefined;
  if (typeof params?.name !== 'string' || typeof params.requestState !== 'string' || !tools.has(params.name)) return;
  const key = keyOf(message.id, params.requestState);
  const call: NotedCall = { tool: params.name, args: tools.get(params.name) ? params.arguments : {} };
  const text = callText(call.tool, call.args);
  const before = noted.get(key);
  if (before === undefined) noted.set(key, { call, text, count: 1 });
  else {
    before.count++;
    // The same call sent twice is one call; two different ones under one id and state are neither.
    if (text === undefined || before.text !== text) before.call = AMBIGUOUS;
  }
  mine.set(message.id, key);
}

function forget(message: JSONRPCMessage, mine: Map<RequestId, string>): void {
  if ('method' in message || !('id' in message)) return;
  const id = message.id;
  if (id === null || id === undefined) return;
  const key = mine.get(id);
  if (key === undefined) return;
  mine.delete(id);
  release(key);
}

function release(key: string): void {
  const entry = noted.get(key);
  if (entry && --entry.count <= 0) noted.delete(key);
}
