import { createRequestStateCodec } from '@modelcontextprotocol/server';
import { NodeBufferClass, type NodeCrypto, nodeCrypto } from './node-builtins.js';
import { hmacSha256Js } from './sha256.js';

/** Seals and opens `requestState`: HMAC-SHA256, signed (readable) but not forgeable, with expiry. */
export interface StateCodec<T> {
  mint(payload: T): Promise<string>;
  /** Throws (`malformed`, `mac`, `expired`) on anything but an intact, unexpired state. */
  verify(state: string): Promise<T>;
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
  if (!nodeCrypto) {
    const ctx = {} as never; // no `bind`: the SDK codec never reads ctx
    return { mint: (payload) => sdk.mint(payload), verify: (state) => sdk.verify(state, ctx) };
  }
  const key = typeof options.key === 'string' ? new TextEncoder().encode(options.key) : Uint8Array.from(options.key);
  const mac = hmacSha256(nodeCrypto, key);
  const seconds = () => Math.floor(options.now() / 1000);
  // States this codec minted, by their exact text, with their envelope's JSON: the same text
  // coming back is what was signed, so the next round (usually this process) skips the MAC and the
  // base64 — never the expiry, and never the parse (each verify returns its own objects).
  const minted = new Map<string, string>();
  const parse = (json: string): T => {
    let envelope: { p?: T; exp?: unknown };
    try {
      envelope = JSON.parse(json);
    } catch {
      throw new Error('malformed');
    }
    if (typeof envelope.exp !== 'number' || envelope.exp < seconds()) throw new Error('expired');
    return envelope.p as T;
  };
  return {
    async mint(payload) {
      const json = JSON.stringify({ p: payload, exp: seconds() + options.ttlSeconds });
      const body = toBase64Url(json);
      const state = `${PREFIX}${body}.${mac(PREFIX + body)}`;
      if (minted.size >= MINTED_KEPT) minted.delete(minted.keys().next().value as string);
      minted.set(state, json);
      return state;
    },
    async verify(state) {
      const json = minted.get(state);
      if (json !== undefined) return parse(json);
      const dot = state.lastIndexOf('.');
      if (!state.startsWith(PREFIX) || dot <= PREFIX.length) throw new Error('malformed');
      const body = state.slice(PREFIX.length, dot);
      if (!constantTimeEqual(mac(PREFIX + body), state.slice(dot + 1))) throw new Error('mac');
      let text: string;
      try {
        text = fromBase64Url(body);
      } catch {
        throw new Error('malformed');
      }
      return parse(text);
    },
  };
}

/** Minted states kept for their next round (the oldest forgotten first; a forgotten one is verified in full). */
const MINTED_KEPT = 1024;

/**
 * HMAC-SHA256 (RFC 2104) keyed once, base64url: computed in JavaScript from the key's padded
 * blocks compressed once (`sha256.ts`). In a server under load every `node:crypto` path measured
 * slower per MAC — `createHmac` (a stream object and a native handle each time) ≈ 13 µs, two one-shot
 * `crypto.hash` calls with their buffer writes ≈ 16 µs (bench/README.md, issue 12 parts G and Q).
 * `node` only hashes a key longer than a block, once. `per-call-caches.test.ts` checks it against
 * `createHmac` over keys of every length class and messages of every size.
 */
export function hmacSha256(node: NodeCrypto, key: Uint8Array): (message: string) => string {
  return hmacSha256Js(Uint8Array.from(key), (long) => node.createHash('sha256').update(long).digest());
}

export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function toBase64Url(text: string): string {
  if (NodeBufferClass) return NodeBufferClass.from(text, 'utf8').toString('base64url');
  return bytesToBase64Url(new TextEncoder().encode(text));
}

/** Bytes as unpadded base64url, where there is no `Buffer` (WebCrypto results, other runtimes). */
export function bytesToBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Decodes a body whose MAC has already been checked: it is one this key sealed. */
function fromBase64Url(text: string): string {
  if (NodeBufferClass) return NodeBufferClass.from(text, 'base64url').toString('utf8');
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}
