import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/** Every elicitation a server sent, as it arrived on the wire (before the SDK strips anything). */
export interface RawAsk {
  mode: 'form' | 'url';
  params: Record<string, unknown>;
  /** `push` for elicitation/create (2025), `embedded` for input_required results (2026-07-28). */
  via: 'push' | 'embedded';
}

/**
 * Wraps a transport to see raw incoming messages: the doctor must judge what the server actually
 * sent, including requests the SDK client would refuse or clean up before a handler runs.
 */
export function tap(inner: Transport, onAsk: (ask: RawAsk) => void): Transport {
  const observe = (message: JSONRPCMessage) => {
    const m = message as { method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> };
    if (m.method === 'elicitation/create' && m.params) {
      onAsk({ mode: m.params.mode === 'url' ? 'url' : 'form', params: m.params, via: 'push' });
    }
    const requests =
      m.result?.resultType === 'input_required'
        ? (m.result.inputRequests as Record<string, { method?: string; params?: Record<string, unknown> }> | undefined)
        : undefined;
    for (const entry of Object.values(requests ?? {})) {
      if (entry?.method === 'elicitation/create' && entry.params) {
        onAsk({ mode: entry.params.mode === 'url' ? 'url' : 'form', params: entry.params, via: 'embedded' });
      }
    }
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
