import { describe, expect, it } from 'vitest';
import { humanSize, localTime, MAX_DIFF_LINES, shortDiff } from './describe.js';
import type { Side } from './workspace.js';

const side = (text: string | Buffer): Side => ({
  exists: true,
  hash: 'x',
  mtime: new Date(0),
  content: Buffer.isBuffer(text) ? text : Buffer.from(text),
});

describe('how a sync conflict is described', () => {
  it('shows times in the chosen language and time zone, to the second, without milliseconds', () => {
    const at = new Date('2026-11-30T10:05:03.123Z');
    expect(localTime(at, 'en', 'Asia/Shanghai')).toBe('30 Nov 2026, 18:05:03 GMT+8');
    expect(localTime(at, 'en', 'UTC')).toBe('30 Nov 2026, 10:05:03 UTC');
    expect(localTime(at, 'zh', 'Asia/Shanghai')).toMatch(/^2026年11月30日.*18:05:03/);
    expect(localTime(at, 'en', 'America/New_York')).toBe('30 Nov 2026, 05:05:03 GMT-5');
  });

  it('gives sizes in a person’s units', () => {
    expect(humanSize(0, 'en')).toBe('0 B');
    expect(humanSize(812, 'en')).toBe('812 B');
    expect(humanSize(4300, 'en')).toBe('4.2 KB');
    expect(humanSize(1_400_000, 'en')).toBe('1.3 MB');
    expect(humanSize(812, 'zh')).toBe('812 字节');
  });

  it('shows a bounded diff, each line made safe for one line, and counts the rest', async () => {
    const remote = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    const local = Array.from({ length: 30 }, (_, i) => (i % 2 ? `changed ${i}\u001b[2J` : `line ${i}`)).join('\n');
    const diff = await shortDiff(side(remote), side(local));
    expect(diff?.lines).toHaveLength(MAX_DIFF_LINES);
    expect(diff?.lines.every((l) => /^[-+] /.test(l) && !l.includes('\u001b'))).toBe(true);
    expect((diff?.lines.length ?? 0) + (diff?.more ?? 0)).toBe(30);
  });

  it('a change of whitespace alone shows: spaces as they are, tabs and what no one sees spelled out', async () => {
    const diff = await shortDiff(side('a b\nc d\ne\u200bf\n'), side('a  b\nc\td\nef\n'));
    expect(diff?.lines).toEqual(['- a b', '- c d', '- e⟨U+200B⟩f', '+ a  b', '+ c⟨U+0009⟩d', '+ ef']);
  });

  it('gives no text diff for binary or huge content, and handles a deleted side', async () => {
    expect(await shortDiff(side(Buffer.from([0, 1, 2])), side('text'))).toBeUndefined();
    expect(await shortDiff(side('x'.repeat(300 * 1024)), side('y'))).toBeUndefined();
    expect(await shortDiff({ exists: false }, side('new\n'))).toEqual({ lines: ['+ new'], more: 0 });
  });
});
