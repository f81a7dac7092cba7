import { createRequestStateCodec } from '@modelcontextprotocol/server';

/** Seals and opens `requestState`: HMAC-SHA256, signed (readable) but not forgeable, with expiry. */
export interface StateCodec<T> {
  mint(payload: T): Promise<string>;
  /** Throws (`malformed`, `mac`, `expired`) on anything but an intact, unexpired state. */
  verify(state: string): Promise<T>;
}

interface NodeHmac {
  createHmac(algorithm: 'sha256', key: Uint8Array): { update(data: string): { digest(encoding: 'base64url'): string } };
}

const PREFIX = 'v1.';

/**
 * The SDK's `createRequestStateCodec` wire format — `v1.<b64url {"p","exp"}>.<b64url HMAC>` — with
 * a synchronous HMAC where the runtime offers one. WebCrypto HMAC is a thread-pool round trip per
 * mint and per verify, which on a fast transport is most of what a question costs; on runtimes
 * without `node:crypto` the SDK codec itself is used. Either side verifies the other's state.
 */
export function createStateCodec<T>(options: {
  key: Uint8Array | string;
  ttlSeconds: number;
  now: () => number;
}): StateCodec<T> {
  const sdk = createRequestStateCodec<T>({ key: options.key, ttlSeconds: options.ttlSeconds });
  const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(
    'node:crypto',
  ) as NodeHmac | undefined;
  if (!node) {
    const ctx = {} as never; // no `bind`: the SDK codec never reads ctx
    return { mint: (payload) => sdk.mint(payload), verify: (state) => sdk.verify(state, ctx) };
  }
  const key = typeof options.key === 'string' ? new TextEncoder().encode(options.key) : Uint8Array.from(options.key);
  const mac = (body: string) =>
    node
      .createHmac('sha256', key)
      .update(PREFIX + body)
      .digest('base64url');
  const seconds = () => Math.floor(options.now() / 1000);
  return {
    async mint(payload) {
      const body = toBase64Url(JSON.stringify({ p: payload, exp: seconds() + options.ttlSeconds }));
      return `${PREFIX}${body}.${mac(body)}`;
    },
    async verify(state) {
      const dot = state.lastIndexOf('.');
      if (!state.startsWith(PREFIX) || dot <= PREFIX.length) throw new Error('malformed');
      const body = state.slice(PREFIX.length, dot);
      if (!constantTimeEqual(mac(body), state.slice(dot + 1))) throw new Error('mac');
      let envelope: { p?: T; exp?: unknown };
      try {
        envelope = JSON.parse(fromBase64Url(body));
      } catch {
        throw new Error('malformed');
      }
      if (typeof envelope.exp !== 'number' || envelope.exp < seconds()) throw new Error('expired');
      return envelope.p as T;
    },
  };
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}
