import { fromBase64Url, hmacSha256, sameMac, toBase64Url } from './digest.js';

/** Seals and opens `requestState`: HMAC-SHA256, signed (readable) but not forgeable, with expiry. */
export interface StateCodec<T> {
  mint(payload: T): Promise<string>;
  /** Throws (`malformed`, `mac`, `expired`) on anything but an intact, unexpired state. */
  verify(state: string): Promise<T>;
}

const PREFIX = 'v1.';

/**
 * The SDK's `createRequestStateCodec` wire format — `v1.<b64url {"p","exp"}>.<b64url HMAC>` — with
 * the MAC taken synchronously (`digest.ts`): WebCrypto HMAC, which the SDK codec uses, is a
 * thread-pool round trip per mint and per verify. Either side verifies the other's state.
 */
export function createStateCodec<T>(options: {
  key: Uint8Array | string;
  ttlSeconds: number;
  now: () => number;
}): StateCodec<T> {
  const mac = hmacSha256(options.key);
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
    // Compared to the millisecond: dead from its second on, not a second later.
    if (typeof envelope.exp !== 'number' || envelope.exp * 1000 < options.now()) throw new Error('expired');
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
      if (!sameMac(mac(PREFIX + body), state.slice(dot + 1))) throw new Error('mac');
      return parse(fromBase64Url(body));
    },
  };
}

/** Minted states kept for their next round (the oldest forgotten first; a forgotten one is verified in full). */
const MINTED_KEPT = 1024;
