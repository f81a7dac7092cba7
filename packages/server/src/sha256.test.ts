/**
 * The JavaScript SHA-256 and HMAC-SHA256 (`sha256.ts`) give exactly what `node:crypto` gives: every
 * padding boundary, keys of every length class, and every kind of UTF-16 text (ASCII, two- and
 * three-byte characters, surrogate pairs, lone surrogates, which UTF-8 writes as U+FFFD).
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256Js, sha256Base64Url } from './sha256.js';

const hashKey = (key: Uint8Array) => createHash('sha256').update(key).digest();

/** A pseudo-random generator with a fixed seed: the same texts every run. */
function texts(): string[] {
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
  const out = [
    '',
    'a',
    'abc',
    'deploy\0{"service":"order-service"}',
    'é',
    '€',
    '😀',
    '\ud800',
    'x\udc00y',
    '\ud83d',
    '\udc00\ud800',
  ];
  // Every length around the padding boundaries (55/56 bytes) and block edges, up to three blocks.
  for (let n = 0; n <= 200; n++) out.push('a'.repeat(n));
  for (let i = 0; i < 500; i++) {
    let text = '';
    const length = Math.floor(next() * 300);
    // Mostly ASCII, then any BMP unit (surrogates included, paired or not).
    const wide = next() < 0.5;
    for (let j = 0; j < length; j++) text += String.fromCharCode(Math.floor(next() * (wide ? 0x10000 : 0x80)));
    out.push(text);
  }
  out.push('ü'.repeat(3000), '😀'.repeat(2000));
  return out;
}

describe('SHA-256 in JavaScript', () => {
  it('is SHA-256 of the text as UTF-8, base64url', () => {
    for (const text of texts())
      expect([text, sha256Base64Url(text)]).toEqual([text, createHash('sha256').update(text).digest('base64url')]);
  });

  it('gives HMAC-SHA256 for keys of every length class, one MAC leaving nothing for the next', () => {
    const all = texts();
    for (const length of [0, 1, 31, 32, 33, 63, 64, 65, 128, 200]) {
      const key = Uint8Array.from({ length }, (_, i) => (i * 131 + length * 7) & 0xff);
      const mac = hmacSha256Js(key, hashKey);
      for (const text of all)
        expect([length, text, mac(text)]).toEqual([
          length,
          text,
          createHmac('sha256', key).update(text).digest('base64url'),
        ]);
    }
  });

  it('keeps two keyed MACs apart when their calls interleave', () => {
    const a = hmacSha256Js(new Uint8Array(32).fill(1), hashKey);
    const b = hmacSha256Js(new Uint8Array(32).fill(2), hashKey);
    for (const text of ['x', 'y'.repeat(500), 'z']) {
      expect(a(text)).toBe(createHmac('sha256', new Uint8Array(32).fill(1)).update(text).digest('base64url'));
      expect(b(text)).toBe(createHmac('sha256', new Uint8Array(32).fill(2)).update(text).digest('base64url'));
    }
  });
});
