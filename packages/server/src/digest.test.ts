/**
 * The one digest/MAC module: the MACs are HMAC-SHA256 as RFC 4231 defines it (a string key is its
 * UTF-8 bytes, a key changed after import changes nothing), digests are SHA-256 of UTF-8, and the
 * MAC comparison tells equal from unequal whatever the lengths and characters.
 */

import { createDecipheriv, createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decrypt, encrypt, fromBase64Url, hmacSha256, sameMac, sha256, toBase64Url } from './digest.js';

const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));

describe('hmacSha256', () => {
  it('gives the RFC 4231 results, for a key shorter than a block and one longer', () => {
    const short = hmacSha256(hex('0b'.repeat(20)));
    expect(short.bytes('Hi There').toString('hex')).toBe(
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    );
    const long = hmacSha256(hex('aa'.repeat(131)));
    expect(long.bytes('Test Using Larger Than Block-Size Key - Hash Key First').toString('hex')).toBe(
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    );
    expect(hmacSha256('Jefe')('what do ya want for nothing?')).toBe(
      Buffer.from('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843', 'hex').toString('base64url'),
    );
  });

  it('takes a string key as its UTF-8 bytes, and keeps its own copy of a byte key', () => {
    expect(hmacSha256('ключ ✓')('m')).toBe(hmacSha256(new TextEncoder().encode('ключ ✓'))('m'));
    const key = new Uint8Array(32).fill(7);
    const mac = hmacSha256(key);
    const before = mac('message');
    key.fill(8);
    expect(mac('message')).toBe(before);
    expect(hmacSha256(key)('message')).not.toBe(before);
  });

  it('MACs a message’s UTF-8 bytes, lone surrogates included, the same each time', () => {
    const mac = hmacSha256('k');
    for (const message of ['', 'é→✓ 😀', '\ud800 lone', 'x'.repeat(100_000)]) {
      expect(mac(message)).toBe(mac(message));
      expect(Buffer.from(mac(message), 'base64url').equals(mac.bytes(message))).toBe(true);
    }
    expect(mac('a')).not.toBe(mac('b'));
  });
});

describe('sha256', () => {
  it('is SHA-256 of the UTF-8 text, hex or base64url', () => {
    expect(sha256('abc', 'hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256('', 'base64url')).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU');
    expect(sha256('ü', 'hex')).toBe(sha256('\u00fc', 'hex'));
    expect(sha256('ü', 'hex')).not.toBe(sha256('u\u0308', 'hex'));
  });
});

describe('sameMac', () => {
  it('is equality, whatever the lengths, and bytes or text alike', () => {
    expect(sameMac('abc', 'abc')).toBe(true);
    expect(sameMac('abc', 'abd')).toBe(false);
    expect(sameMac('abc', 'ab')).toBe(false);
    expect(sameMac('', '')).toBe(true);
    // Same length in UTF-16 units, not in bytes: unequal, never a throw.
    expect(sameMac('é', 'e')).toBe(false);
    expect(sameMac(hex('0102'), hex('0102'))).toBe(true);
    expect(sameMac(hex('0102'), hex('0103'))).toBe(false);
  });
});

describe('base64url', () => {
  it('carries any text there and back', () => {
    for (const text of ['', 'a', '{"p":1}', 'é→✓ 😀']) expect(fromBase64Url(toBase64Url(text))).toBe(text);
  });
});

describe('encrypt / decrypt (AES-256-GCM)', () => {
  const key = Uint8Array.from(createHash('sha256').update('k').digest());
  const aad = Buffer.from('from\nto\nn\n1');

  it('writes IV, body and tag that the platform decipher reads back', () => {
    const sealed = Buffer.from(encrypt(key, 'é→✓ {"a":1}', aad), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12)).setAAD(aad);
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    expect(Buffer.concat([decipher.update(sealed.subarray(12, -16)), decipher.final()]).toString()).toBe('é→✓ {"a":1}');
  });

  it('gives every seal its own IV, past the refill of the pool they come from', () => {
    const ivs = new Set<string>();
    for (let i = 0; i < 1_000; i++)
      ivs.add(
        Buffer.from(encrypt(key, 'same', aad), 'base64url')
          .subarray(0, 12)
          .toString('hex'),
      );
    expect(ivs.size).toBe(1_000);
  });

  it('refuses another key, other associated data, an altered or cut message', () => {
    const sealed = encrypt(key, 'plain', aad);
    expect(decrypt(key, sealed, aad)).toBe('plain');
    // The same bytes in another array are the same key; other bytes are not.
    expect(decrypt(Uint8Array.from(key), sealed, aad)).toBe('plain');
    const other = Uint8Array.from(key);
    other[0] = (other[0] ?? 0) ^ 1;
    expect(decrypt(other, sealed, aad)).toBeUndefined();
    expect(decrypt(key, sealed, Buffer.from('from\nto\nn\n2'))).toBeUndefined();
    const bytes = Buffer.from(sealed, 'base64url');
    for (const at of [0, 12, bytes.length - 1]) {
      const altered = Buffer.from(bytes);
      altered[at] = (altered[at] ?? 0) ^ 1;
      expect(decrypt(key, altered.toString('base64url'), aad)).toBeUndefined();
    }
    expect(decrypt(key, bytes.subarray(0, 27).toString('base64url'), aad)).toBeUndefined();
    expect(decrypt(key, '', aad)).toBeUndefined();
  });
});
