import type { Client } from '@modelcontextprotocol/client';

/**
 * A signal that aborts when `client`'s current connection closes (`close()`, or its transport
 * ending); each connection gets its own, so a client connected again asks again.
 *
 * Upstream gap (SDK 2.4.0): on a 2026-07-28 connection the elicitation handler runs inside the
 * call's input_required flow, whose only signal is the caller's, and closing the client aborts
 * neither: the person went on being asked for a client that was gone (holding the terminal, and
 * every other client's questions behind it, until the timeout) and the call never settled. On
 * 2025-11-25 the SDK aborts the request itself. Watched through the client's `onclose`, which
 * stays the host's to set: what it sets there is kept, and called after.
 */
export function connectionSignal(client: Client): () => AbortSignal {
  let current = new AbortController();
  let hosts: (() => void) | undefined = client.onclose;
  const onclose = () => {
    const ended = current;
    current = new AbortController();
    ended.abort(new Error('The client closed its connection to the server.'));
    hosts?.();
  };
  Object.defineProperty(client, 'onclose', {
    configurable: true,
    enumerable: true,
    get: () => onclose,
    set: (fn: (() => void) | undefined) => {
      hosts = fn;
    },
  });
  return () => current.signal;
}
