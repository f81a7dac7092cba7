/**
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) in JavaScript, for the small texts a round
 * hashes: the call's canonical text, and the MAC of the state it seals.
 *
 * Why not `node:crypto`: in a server the first native hash of a request measured ≈ 14 µs and the
 * MAC's native steps (a UTF-8 write into a buffer, a view of it, two hashes, a latin1 write) ≈ 16 µs
 * together, against ≈ 1.5 µs for the same calls in a tight loop — cold native code and
 * OpenSSL's per-digest set-up on every request, where the JIT-compiled code here stays warm with
 * the rest of the round (bench/README.md, issue 12 part Q). An HMAC here starts from the key's two
 * padded blocks compressed once (RFC 2104 §4), so a MAC of a state is ⌈(len + 9) / 64⌉ + 1
 * compressions and no allocation but its result.
 *
 * Only additions, rotations and bitwise operations on 32-bit words: no table indexed by data, no
 * branch on it. `per-call-caches.test.ts` and `sha256.test.ts` check every function against
 * `node:crypto` over keys and messages of every length class, and every kind of UTF-16 text.
 */

const K = Int32Array.of(
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
);
const IV = Int32Array.of(
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
);
const BLOCK = 64;

/** The message schedule, shared: nothing here is re-entrant or asynchronous. */
const W = new Int32Array(64);

/** Compresses the 64-byte block of `bytes` at `at` into `h`. */
function compress(h: Int32Array, bytes: Uint8Array, at: number): void {
  for (let i = 0; i < 16; i++, at += 4) {
    W[i] =
      ((bytes[at] as number) << 24) |
      ((bytes[at + 1] as number) << 16) |
      ((bytes[at + 2] as number) << 8) |
      (bytes[at + 3] as number);
  }
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15] as number;
    const b = W[i - 2] as number;
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    W[i] = ((W[i - 16] as number) + s0 + (W[i - 7] as number) + s1) | 0;
  }
  let a = h[0] as number;
  let b = h[1] as number;
  let c = h[2] as number;
  let d = h[3] as number;
  let e = h[4] as number;
  let f = h[5] as number;
  let g = h[6] as number;
  let k = h[7] as number;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (k + s1 + ((e & f) ^ (~e & g)) + (K[i] as number) + (W[i] as number)) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    k = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = ((h[0] as number) + a) | 0;
  h[1] = ((h[1] as number) + b) | 0;
  h[2] = ((h[2] as number) + c) | 0;
  h[3] = ((h[3] as number) + d) | 0;
  h[4] = ((h[4] as number) + e) | 0;
  h[5] = ((h[5] as number) + f) | 0;
  h[6] = ((h[6] as number) + g) | 0;
  h[7] = ((h[7] as number) + k) | 0;
}

/** Where a text is written as UTF-8 and padded, grown when a longer one comes. */
let scratch = new Uint8Array(1024);

/**
 * Writes `text` as UTF-8 at `scratch[BLOCK…]`, as `Buffer.write` and `TextEncoder` do (a lone
 * surrogate becomes U+FFFD), then SHA-256's padding for `prefix` bytes before it (a key block, or
 * none). Returns where the padded message ends.
 */
function load(text: string, prefix: number): number {
  // At most 3 bytes per UTF-16 unit, plus the padding's 9 and a block to round up to.
  if (BLOCK + text.length * 3 + 2 * BLOCK > scratch.length)
    scratch = new Uint8Array(BLOCK + text.length * 3 + 2 * BLOCK);
  const out = scratch;
  let at = BLOCK;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[at++] = c;
      continue;
    }
    if (c < 0x800) {
      out[at++] = 0xc0 | (c >> 6);
      out[at++] = 0x80 | (c & 0x3f);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        out[at++] = 0xf0 | (cp >> 18);
        out[at++] = 0x80 | ((cp >> 12) & 0x3f);
        out[at++] = 0x80 | ((cp >> 6) & 0x3f);
        out[at++] = 0x80 | (cp & 0x3f);
        continue;
      }
      c = 0xfffd;
    }
    out[at++] = 0xe0 | (c >> 12);
    out[at++] = 0x80 | ((c >> 6) & 0x3f);
    out[at++] = 0x80 | (c & 0x3f);
  }
  return pad(out, at, prefix + at - BLOCK);
}

/** SHA-256's padding after the message ending at `at`, `length` bytes hashed in all; returns the padded end. */
function pad(out: Uint8Array, at: number, length: number): number {
  out[at++] = 0x80;
  while ((at - BLOCK) % BLOCK !== BLOCK - 8) out[at++] = 0;
  // The length in bits, 64-bit big-endian (texts here are far below 2^32 bytes).
  const bits = length * 8;
  const high = Math.floor(bits / 0x100000000);
  out[at++] = high >>> 24;
  out[at++] = (high >>> 16) & 0xff;
  out[at++] = (high >>> 8) & 0xff;
  out[at++] = high & 0xff;
  out[at++] = bits >>> 24;
  out[at++] = (bits >>> 16) & 0xff;
  out[at++] = (bits >>> 8) & 0xff;
  out[at++] = bits & 0xff;
  return at;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
/** The 43 characters of a digest in base64url, as codes: one string made of them, not 43 concatenations. */
const codes: number[] = new Array(43).fill(0);

function byteOf(h: Int32Array, n: number): number {
  return ((h[n >> 2] as number) >>> (24 - 8 * (n & 3))) & 0xff;
}

/** A digest as unpadded base64url (43 characters). */
function base64Url(h: Int32Array): string {
  let j = 0;
  for (let i = 0; i < 30; i += 3) {
    const v = (byteOf(h, i) << 16) | (byteOf(h, i + 1) << 8) | byteOf(h, i + 2);
    codes[j++] = CODES[v >>> 18] as number;
    codes[j++] = CODES[(v >>> 12) & 63] as number;
    codes[j++] = CODES[(v >>> 6) & 63] as number;
    codes[j++] = CODES[v & 63] as number;
  }
  // The last two bytes: 16 bits, three characters (the last one's low two bits zero).
  const v = (byteOf(h, 30) << 8) | byteOf(h, 31);
  codes[j++] = CODES[v >>> 10] as number;
  codes[j++] = CODES[(v >>> 4) & 63] as number;
  codes[j] = CODES[(v & 15) << 2] as number;
  return String.fromCharCode.apply(null, codes);
}

const state = new Int32Array(8);

/** SHA-256 of `text` as UTF-8, base64url without padding (43 characters). */
export function sha256Base64Url(text: string): string {
  const end = load(text, 0);
  state.set(IV);
  for (let at = BLOCK; at < end; at += BLOCK) compress(state, scratch, at);
  return base64Url(state);
}

/**
 * HMAC-SHA256 keyed once: the key's inner and outer padded blocks are compressed here, and each
 * MAC continues from them. Returns the MAC of a text (as UTF-8), base64url without padding.
 */
export function hmacSha256Js(key: Uint8Array, hashKey: (key: Uint8Array) => Uint8Array): (message: string) => string {
  const block = new Uint8Array(BLOCK);
  block.set(key.length > BLOCK ? hashKey(key) : key);
  const inner = IV.slice();
  const outer = IV.slice();
  const padded = new Uint8Array(BLOCK);
  for (let i = 0; i < BLOCK; i++) padded[i] = (block[i] as number) ^ 0x36;
  compress(inner, padded, 0);
  for (let i = 0; i < BLOCK; i++) padded[i] = (block[i] as number) ^ 0x5c;
  compress(outer, padded, 0);
  // The outer hash's one block: the inner digest, then padding for 64 + 32 bytes.
  const last = new Uint8Array(BLOCK);
  last[32] = 0x80;
  last[62] = ((BLOCK + 32) * 8) >>> 8;
  last[63] = ((BLOCK + 32) * 8) & 0xff;
  return (message) => {
    const end = load(message, BLOCK);
    state.set(inner);
    for (let at = BLOCK; at < end; at += BLOCK) compress(state, scratch, at);
    for (let i = 0; i < 8; i++) {
      const word = state[i] as number;
      last[i * 4] = word >>> 24;
      last[i * 4 + 1] = (word >>> 16) & 0xff;
      last[i * 4 + 2] = (word >>> 8) & 0xff;
      last[i * 4 + 3] = word & 0xff;
    }
    state.set(outer);
    compress(state, last, 0);
    return base64Url(state);
  };
}
