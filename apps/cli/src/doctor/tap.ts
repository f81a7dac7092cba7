import { type JSONRPCMessage, ProtocolErrorCode, type RequestId, type Transport } from '@modelcontextprotocol/client';

/** Every elicitation a server sent, as it arrived on the wire (before the SDK strips anything). */
export interface RawAsk {
  mode: 'form' | 'url';
  params: Record<string, unknown>;
  /**
   * `push` for elicitation/create (2025), `embedded` for input_required results (2026-07-28),
   * `error` for the URL elicitations a -32042 error carries.
   */
  via: 'push' | 'embedded' | 'error';
  /** The `inputRequests` key an embedded question came under: the same key in a later round is that question again. */
  key?: string;
  /** A pushed question's JSON-RPC id: the response that carries doctor's answer names it. */
  id?: RequestId;
  /**
   * An embedded question's round: the `tools/call` params (arguments, `inputResponses`,
   * `requestState`) whose result carried it. Sent again word for word, they replay that round.
   */
  request?: Record<string, unknown>;
}

/** An answer of doctor's on its way out: the response to a pushed question, or a retried call carrying the answers to its keys. */
export type SentAnswer = { id: RequestId } | { keys: string[] };

/** What a tapped transport reports, as it happens. */
export interface TapHooks {
  /** The questions of one incoming message together (a 2026-07-28 round may carry several). */
  onAsks(asks: RawAsk[]): void;
  /** Answers leaving for the server: only a question that came after this can have followed from them. */
  onSent?(sent: SentAnswer): void;
  /** The server answered one of the client's requests (with a result or an error). */
  onResponse?(): void;
}

/**
 * Wraps a transport to see raw messages both ways: the doctor must judge what the server actually
 * sent, including requests the SDK client would refuse or clean up before a handler runs, and
 * when each of doctor's answers went out, which decides what a question can have followed from.
 */
export function tap(inner: Transport, hooks: TapHooks): Transport {
  /** The `tools/call` requests sent and not answered yet, by id: what each round was. */
  const calls = new Map<RequestId, Record<string, unknown>>();
  const observe = (message: JSONRPCMessage) => {
    const m = message as {
      id?: RequestId;
      method?: string;
      params?: Record<string, unknown>;
      result?: Record<string, unknown>;
      error?: { code?: unknown; data?: unknown };
    };
    let request: Record<string, unknown> | undefined;
    if (m.method === undefined && m.id !== undefined) {
      request = calls.get(m.id);
      calls.delete(m.id);
      hooks.onResponse?.();
    }
    const asks: RawAsk[] = [];
    if (m.method === 'elicitation/create' && isRecord(m.params)) {
      asks.push({
        mode: m.params.mode === 'url' ? 'url' : 'form',
        params: m.params,
        via: 'push',
        ...(m.id !== undefined ? { id: m.id } : {}),
      });
    }
    const requests = m.result?.resultType === 'input_required' ? m.result.inputRequests : undefined;
    for (const [key, entry] of Object.entries(isRecord(requests) ? requests : {})) {
      const e = isRecord(entry) ? entry : {};
      if (e.method === 'elicitation/create' && isRecord(e.params)) {
        const mode = e.params.mode === 'url' ? 'url' : 'form';
        asks.push({ mode, params: e.params, via: 'embedded', key, ...(request ? { request } : {}) });
      }
    }
    const error = m.error;
    const carried = error?.code === ProtocolErrorCode.UrlElicitationRequired && isRecord(error.data) ? error.data : {};
    for (const e of Array.isArray(carried.elicitations) ? carried.elicitations : []) {
      if (isRecord(e)) asks.push({ mode: 'url', params: e, via: 'error' });
    }
    if (asks.length > 0) hooks.onAsks(asks);
  };
  const sent = (message: JSONRPCMessage) => {
    const m = message as { id?: RequestId; method?: string; params?: unknown; result?: unknown; error?: unknown };
    if (m.id === undefined) return;
    if (m.method === undefined && (m.result !== undefined || m.error !== undefined)) hooks.onSent?.({ id: m.id });
    if (m.method !== 'tools/call' || !isRecord(m.params)) return;
    calls.set(m.id, m.params);
    const answers = m.params.inputResponses;
    if (isRecord(answers)) hooks.onSent?.({ keys: Object.keys(answers) });
  };
  return new Proxy(inner, {
    set(target, key, value) {
      if (key === 'onmessage' && typeof value === 'function') {
        const handler = value as (message: JSONRPCMessage, extra?: unknown) => void;
        target.onmessage = (message, extra) => {
          observe(message);
          handler(message, extra);
        };
        return true;
      }
      return Reflect.set(target, key, value);
    },
    get(target, key) {
      if (key === 'send') {
        const send = target.send.bind(target);
        // Seen as it is handed to the transport: before the bytes can reach the server, never after.
        return (message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]) => {
          sent(message);
          return send(message, options);
        };
      }
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
