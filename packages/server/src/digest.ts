/**
 * Every digest and MAC the server library takes, on the platform's `node:crypto` (Node, Bun and
 * Deno all provide it): SHA-256 of a text, HMAC-SHA256 under a key imported once, the
 * constant-time comparison a MAC check needs, and AES-256-GCM for what a shared store keeps
 * (relay frames, resumable stream events). Nothing here computes a hash or a cipher itself.
 */
import { Buffer } from 'node:buffer';
import type { KeyObject } from 'node:crypto';

type NodeCrypto = typeof import('node:crypto');
let loaded: NodeCrypto | undefined;

/**
 * `node:crypto`, loaded on first use. Loading it is a fifth of what importing this library costs a
 * server's start, and a server takes no digest before its first call (a stdio server on 2025
 * revisions may never take one), so it is not imported up front.
 */
function nodeCrypto(): NodeCrypto {
  loaded ??= process.getBuiltinModule('node:crypto');
  return loaded;
}

/**
 * A random v4 UUID (the platform's Web Crypto, which every runtime has), as one flat string. Node
 * builds its text by concatenation, a tree of cons strings that V8 keeps as it is: about 500 bytes
 * held for as long as the id is (a session's, an open question's call), where the 36 characters
 * take about 60. `toLowerCase` (the digits are lower case already) copies it flat.
 */
export function randomUUID(): string {
  return crypto.randomUUID().toLowerCase();
}

/** SHA-256 of a text's UTF-8 bytes. */
export function sha256(text: string, encoding: 'hex' | 'base64url'): string {
  return nodeCrypto().createHash('sha256').update(text, 'utf8').digest(encoding);
}

/** SHA-1 (hex) of a text: only how Redis names a cached Lua script (EVALSHA), never a check. */
export function sha1Hex(text: string): string {
  return nodeCrypto().createHash('sha1').update(text, 'utf8').digest('hex');
}

/** HMAC-SHA256 keyed once; each call MACs a text's UTF-8 bytes, as base64url or raw bytes. */
export interface Mac {
  (message: string): string;
  bytes(message: string): Buffer;
}

export function hmacSha256(key: Uint8Array | string): Mac {
  const { createHmac, createSecretKey } = nodeCrypto();
  const secret: KeyObject = createSecretKey(typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key));
  const mac = (message: string) => createHmac('sha256', secret).update(message, 'utf8').digest('base64url');
  mac.bytes = (message: string) => createHmac('sha256', secret).update(message, 'utf8').digest();
  return mac;
}

/** Whether two MACs (texts or bytes) are equal, in time that does not depend on where they differ. */
export function sameMac(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const x = typeof a === 'string' ? Buffer.from(a, 'utf8') : a;
  const y = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  return x.length === y.length && nodeCrypto().timingSafeEqual(x, y);
}

/** A text's UTF-8 bytes as unpadded base64url, and back. */
export function toBase64Url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

export function fromBase64Url(text: string): string {
  return Buffer.from(text, 'base64url').toString('utf8');
}

/** Bytes as unpadded base64url. */
export function bytesToBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/**
 * The AES key object for raw key bytes, imported once per key (a raw key given to
 * `createCipheriv` is imported again on every call, most of what sealing a small frame costs).
 */
const cipherKeys = new WeakMap<Uint8Array, KeyObject>();
function cipherKey(key: Uint8Array): KeyObject {
  let imported = cipherKeys.get(key);
  if (!imported) {
    imported = nodeCrypto().createSecretKey(key);
    cipherKeys.set(key, imported);
  }
  return imported;
}

/**
 * 12 random bytes, an IV: the platform's random bytes (`randomFillSync`) taken a few hundred IVs
 * at a time instead of one call per seal. Each IV is handed out once; the pool is refilled when
 * used up.
 */
function nextIv(): Buffer {
  if (ivAt + 12 > ivPool.length) {
    nodeCrypto().randomFillSync(ivPool);
    ivAt = 0;
  }
  ivAt += 12;
  return ivPool.subarray(ivAt - 12, ivAt);
}
const ivPool = Buffer.alloc(12 * 256);
let ivAt = ivPool.length;

/** `plain` encrypted and authenticated (AES-256-GCM, a random 12-byte IV), bound to `associated`: base64url of IV, body and tag. */
export function encrypt(key: Uint8Array, plain: string, associated: Uint8Array): string {
  const iv = nextIv();
  const cipher = nodeCrypto().createCipheriv('aes-256-gcm', cipherKey(key), iv).setAAD(associated);
  const body = cipher.update(plain, 'utf8');
  const last = cipher.final();
  return Buffer.concat([iv, body, last, cipher.getAuthTag()]).toString('base64url');
}

/** The plain text, or undefined when it does not decrypt (another key, other associated data, altered, cut short). */
export function decrypt(key: Uint8Array, sealed: string, associated: Uint8Array): string | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < 12 + 16) return undefined;
  try {
    const decipher = nodeCrypto()
      .createDecipheriv('aes-256-gcm', cipherKey(key), bytes.subarray(0, 12))
      .setAAD(associated);
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
