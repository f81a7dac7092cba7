import { createRequestStateCodec } from '@modelcontextprotocol/server';
import { type NodeBuffer, NodeBufferClass, type NodeCrypto, nodeCrypto } from './node-builtins.js';

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
 * HMAC-SHA256 (RFC 2104) keyed once, base64url. Where Node has the one-shot `crypto.hash`, each MAC
 * is two of those over a reused buffer (key pad, then message): in a server under load, a
 * `createHmac` per MAC (a stream object and a native handle each time) measured ≈ 13 µs, the
 * largest single cost of a round. Elsewhere `createHmac`. `per-call-caches.test.ts` checks both
 * against `createHmac` over keys of every length class and messages of every size.
 */
export function hmacSha256(
  node: NodeCrypto,
  key: Uint8Array,
  buffers: NodeBuffer | undefined = NodeBufferClass,
): (message: string) => string {
  const secret = Uint8Array.from(key);
  const hash = node.hash;
  if (!hash || !buffers) return (message) => node.createHmac('sha256', secret).update(message).digest('base64url');
  const block = new Uint8Array(BLOCK);
  block.set(secret.length > BLOCK ? node.createHash('sha256').update(secret).digest() : secret);
  // [key ^ ipad | message], grown when a message needs more; [key ^ opad | inner digest].
  let inner = buffers.alloc(BLOCK + 512);
  const outer = buffers.alloc(BLOCK + 32);
  for (let i = 0; i < BLOCK; i++) {
    inner[i] = (block[i] as number) ^ 0x36;
    outer[i] = (block[i] as number) ^ 0x5c;
  }
  return (message) => {
    // At most 3 UTF-8 bytes per UTF-16 unit: `write` never runs out of room, so never truncates.
    if (BLOCK + message.length * 3 > inner.length) {
      const grown = buffers.alloc(BLOCK + message.length * 3);
      grown.set(inner.subarray(0, BLOCK));
      inner = grown;
    }
    const length = inner.write(message, BLOCK, 'utf8');
    // The inner digest as a latin1 string (one char per byte), written into place: a 'buffer'
    // digest allocates a Buffer each time, which cost more than the hash.
    outer.write(hash('sha256', inner.subarray(0, BLOCK + length), 'latin1'), BLOCK, 'latin1');
    return hash('sha256', outer, 'base64url');
  };
}

const BLOCK = 64; // SHA-256's block size, in bytes

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
