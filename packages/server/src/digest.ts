/**
 * Every digest and MAC the server library takes, on the platform's `node:crypto` (Node, Bun and
 * Deno all provide it): SHA-256 of a text, HMAC-SHA256 under a key imported once, and the
 * constant-time comparison a MAC check needs. Nothing here computes a hash itself.
 */
import { Buffer } from 'node:buffer';
import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

export { randomUUID } from 'node:crypto';

/** SHA-256 of a text's UTF-8 bytes. */
export function sha256(text: string, encoding: 'hex' | 'base64url'): string {
  return createHash('sha256').update(text, 'utf8').digest(encoding);
}

/** HMAC-SHA256 keyed once; each call MACs a text's UTF-8 bytes, as base64url or raw bytes. */
export interface Mac {
  (message: string): string;
  bytes(message: string): Buffer;
}

export function hmacSha256(key: Uint8Array | string): Mac {
  const secret: KeyObject = createSecretKey(typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key));
  const mac = (message: string) => createHmac('sha256', secret).update(message, 'utf8').digest('base64url');
  mac.bytes = (message: string) => createHmac('sha256', secret).update(message, 'utf8').digest();
  return mac;
}

/** Whether two MACs (texts or bytes) are equal, in time that does not depend on where they differ. */
export function sameMac(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const x = typeof a === 'string' ? Buffer.from(a, 'utf8') : a;
  const y = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  return x.length === y.length && timingSafeEqual(x, y);
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
