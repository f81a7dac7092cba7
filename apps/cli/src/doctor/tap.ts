import { type JSONRPCMessage, ProtocolErrorCode, type Transport } from '@modelcontextprotocol/client';

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
}

/**
 * Wraps a transport to see raw incoming messages: the doctor must judge what the server actually
 * sent, including requests the SDK client would refuse or clean up before a handler runs.
 * `onAsks` gets the questions of one message together (a 2026-07-28 round may carry several).
 */
export function tap(inner: Transport, onAsks: (asks: RawAsk[]) => void): Transport {
  const observe = (message: JSONRPCMessage) => {
    const m = message as { method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> };
    const asks: RawAsk[] = [];
    if (m.method === 'elicitation/create' && isRecord(m.params)) {
      asks.push({ mode: m.params.mode === 'url' ? 'url' : 'form', params: m.params, via: 'push' });
    }
    const requests = m.result?.resultType === 'input_required' ? m.result.inputRequests : undefined;
    for (const [key, entry] of Object.entries(isRecord(requests) ? requests : {})) {
      const e = isRecord(entry) ? entry : {};
      if (e.method === 'elicitation/create' && isRecord(e.params)) {
        asks.push({ mode: e.params.mode === 'url' ? 'url' : 'form', params: e.params, via: 'embedded', key });
      }
    }
    const error = (message as { error?: { code?: unknown; data?: unknown } }).error;
    const carried = error?.code === ProtocolErrorCode.UrlElicitationRequired && isRecord(error.data) ? error.data : {};
    for (const e of Array.isArray(carried.elicitations) ? carried.elicitations : []) {
      if (isRecord(e)) asks.push({ mode: 'url', params: e, via: 'error' });
    }
    if (asks.length > 0) onAsks(asks);
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
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
