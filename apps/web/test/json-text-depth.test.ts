/**
 * `JsonTextDepth` reads a model's tool-call arguments as they stream and says when they nest past
 * what the chat carries, without parsing them: it must agree with `nestsDeeper` on the parsed
 * value, at the bound and around it, whatever strings hold and however the text is split.
 */
import { describe, expect, it } from 'vitest';
import { JsonTextDepth, MAX_JSON_DEPTH, nestsDeeper } from '../lib/depth';

/** A value nesting `levels` below itself, through objects and arrays in turn, with strings that hold brackets. */
function nested(levels: number): unknown {
  let value: unknown = 'a "quoted" ]}[{ \\ string';
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value, '[[['] : { k: value, '{"': '}}' };
  return value;
}

/** Whether the text, read in pieces of `size` characters, stays within the bound. */
function within(text: string, size: number, max = MAX_JSON_DEPTH): boolean {
  const depth = new JsonTextDepth(max);
  let ok = true;
  for (let i = 0; i < text.length; i += size) ok = depth.read(text.slice(i, i + size));
  return ok;
}

describe('JsonTextDepth', () => {
  it.each([0, 1, 2, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, MAX_JSON_DEPTH + 2, 250])(
    'agrees with nestsDeeper on a value nesting %i levels, read whole or a character at a time',
    (levels) => {
      const value = nested(levels);
      const text = JSON.stringify(value);
      expect(within(text, text.length)).toBe(!nestsDeeper(value, MAX_JSON_DEPTH));
      expect(within(text, 1)).toBe(!nestsDeeper(value, MAX_JSON_DEPTH));
      expect(within(text, 7)).toBe(!nestsDeeper(value, MAX_JSON_DEPTH));
    },
  );

  it('counts no bracket inside a string, an escaped quote included', () => {
    expect(within(JSON.stringify({ a: `\\"${'['.repeat(500)}` }), 3, 1)).toBe(true);
    expect(within('{"a":"\\\\"}', 1, 0)).toBe(true);
  });

  it('reads 20,000 levels without parsing (no stack overflow), and once past stays past', () => {
    const depth = new JsonTextDepth();
    expect(depth.read('['.repeat(20_000))).toBe(false);
    expect(depth.read(']'.repeat(20_000))).toBe(false);
  });
});
