import type { JSONRPCMessage, RequestId, Server, Transport } from '@modelcontextprotocol/server';

/**
 * Client cancellations of 2025 tool calls, watched once per connection instead of once per
 * question. Handing the SDK the call's own `AbortSignal` for each `elicitation/create` costs it an
 * abort listener added and removed per question — measured at 5–6 % of an in-memory round trip
 * (2025-11-25, `bench/ask-overhead.ts`). Instead, each connection of a kit-built server lets its
 * messages pass one hook first (the SDK calls a transport's earlier `onmessage` before its own);
 * a `notifications/cancelled` naming a call with a question open aborts that call's
 * `CallCancel`, whose signal the SDK was given: the question ends at once, as before.
 */
interface Connection {
  /** Open questions' calls, by the call's request id. */
  open: Map<RequestId, CallCancel>;
  /**
   * Calls cancelled while no question of theirs was open, kept until the SDK has aborted their own
   * signal (it does so in a later microtask): a question sent in between still ends.
   */
  cancelled: Set<RequestId>;
}

/**
 * Each watched server's connection, on the server itself: a 2026-07-28 request builds and connects
 * a server, and an entry per request in a `WeakMap` cost more than the rest of the watch.
 */
const CONNECTION = Symbol('elicitkit.connection');
type Watched = Server & { [CONNECTION]?: Connection };

/**
 * Makes `server` watch cancellations on every transport it connects to. A server not built by the
 * kit (`serverOptions()` + `register`) is not watched: its questions carry the call's own signal.
 */
export function watchCancellations(server: Server): void {
  // One shared method where `connect` is still the class's own (always, for a server the kit
  // builds): a 2026-07-28 request builds a server, and binding `connect` made a function per server.
  if (!Object.hasOwn(server, 'connect')) {
    server.connect = watchedConnect;
    return;
  }
  const connect = server.connect.bind(server);
  server.connect = (transport: Transport) => connect(watch(server, transport));
}

function watchedConnect(this: Server, transport: Transport): Promise<void> {
  return (Object.getPrototypeOf(this) as Server).connect.call(this, watch(this, transport));
}

/** Lets `transport`'s messages pass the cancel hook first; the connection is `server`'s from now on. */
function watch(server: Server, transport: Transport): Transport {
  const connection: Connection = { open: new Map(), cancelled: new Set() };
  const before = transport.onmessage;
  transport.onmessage = (message, extra) => {
    before?.(message, extra);
    const id = cancelledCall(message);
    if (id !== undefined) cancel(connection, id);
  };
  (server as Watched)[CONNECTION] = connection;
  return transport;
}

function cancel(connection: Connection, id: RequestId): void {
  const call = connection.open.get(id);
  if (call) {
    call.abort();
    return;
  }
  connection.cancelled.add(id);
  // By the next turn of the loop the SDK has aborted the call's own signal, which `ask` checks.
  // (A timer, not `setImmediate`: the package also runs where there is none.)
  setTimeout(() => connection.cancelled.delete(id), 0);
}

function cancelledCall(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled') return undefined;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The per-call cancel a question's request is sent with, or undefined where it is not watched. */
export function callCancel(server: Server, call: RequestId, own: AbortSignal): CallCancel | undefined {
  const connection = (server as Watched)[CONNECTION];
  return connection ? new CallCancel(connection, call, own) : undefined;
}

/**
 * What the SDK reads of a request's `signal` (`aborted`, `reason`, an `abort` listener added and
 * removed), for one tool call's questions: plain fields instead of an `EventTarget`, aborted only
 * when the client cancels that call. Registered on its connection only while a question is open.
 */
export class CallCancel {
  aborted = false;
  readonly reason = 'The client cancelled the tool call.';
  private listeners: (() => void)[] = [];
  private pending = 0;

  constructor(
    private readonly connection: Connection,
    private readonly call: RequestId,
    private readonly own: AbortSignal,
  ) {}

  /** As the SDK's `RequestOptions.signal`. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }

  /**
   * A question of the call is going out; `release` once it has ended. A cancel that came before
   * (the SDK has aborted the call's signal, or is about to) aborts it now.
   */
  hold(): void {
    if (this.own.aborted || this.connection.cancelled.has(this.call)) this.abort();
    if (this.pending++ === 0) this.connection.open.set(this.call, this);
  }

  release(): void {
    if (--this.pending === 0 && this.connection.open.get(this.call) === this) this.connection.open.delete(this.call);
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }

  throwIfAborted(): void {
    if (this.aborted) throw new Error(this.reason);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    for (const listener of this.listeners.splice(0)) listener();
  }
}
