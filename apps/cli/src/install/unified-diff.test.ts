// A dry run's diff is computed on the lines between the first and the last that differ (with a
// margin), not on the whole file: the same diff as jsdiff gives for the whole file, at a cost that
// does not grow with the lines nobody changed.
import { applyPatch, createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { middle, unifiedDiff } from './unified-diff.js';

/** The diff of the whole of both texts, as the dry run printed it before. */
function whole(file: string, before: string | undefined, after: string): string[] {
  const from = before === undefined ? '/dev/null' : file;
  return createTwoFilesPatch(from, file, before ?? '', after, '', '', { headerOptions: FILE_HEADERS_ONLY })
    .replace(/\n$/, '')
    .split('\n');
}

/** Lines drawn from a few, so that texts repeat lines and a diff has choices to make. */
const line = fc.oneof(
  fc.constantFrom('{', '}', '', '  "x": 1,', '    "args": []', 'a'),
  fc.string({ maxLength: 6 }).map((s) => s.replace(/[\r\n]/g, '')),
);
const text = fc
  .tuple(fc.array(line, { maxLength: 40 }), fc.boolean())
  .map(([lines, newline]) => lines.join('\n') + (newline && lines.length > 0 ? '\n' : ''));
/** `before` edited: lines inserted, removed or changed here and there, its last newline perhaps toggled. */
const edited = text.chain((before) =>
  fc
    .tuple(
      fc.array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'remove', 'change'), line), { minLength: 0, maxLength: 4 }),
      fc.constantFrom('keep', 'toggle'),
    )
    .map(([edits, end]) => {
      const lines = before.split('\n');
      for (const [at, how, value] of edits) {
        const i = at % (lines.length + 1);
        if (how === 'insert') lines.splice(i, 0, value);
        else if (how === 'remove') lines.splice(i, 1);
        else lines[i] = `${lines[i] ?? ''}${value}Z`;
      }
      let after = lines.join('\n');
      if (end === 'toggle') after = after.endsWith('\n') ? after.slice(0, -1) : `${after}\n`;
      return { before, after };
    }),
);

describe('the dry run’s diff', () => {
  it('property: is the diff of the whole texts, and applied to the old text gives the new', () => {
    fc.assert(
      fc.property(edited, fc.boolean(), ({ before, after }, absent) => {
        const old = absent ? undefined : before;
        const shown = unifiedDiff('conf.json', old, after);
        expect(shown).toEqual(whole('conf.json', old, after));
        expect(applyPatch(old ?? '', `${shown.join('\n')}\n`)).toBe(after);
      }),
      { numRuns: 3_000 },
    );
  });

  it('cases at the edges: a new file, no change, the first line, the last line, a lost or added final newline', () => {
    const cases: [string | undefined, string][] = [
      [undefined, '{\n  "mcpServers": {}\n}\n'],
      ['', '{}\n'],
      ['{}\n', ''],
      ['{}\n', '{}\n'],
      ['a\nb\nc\n', 'A\nb\nc\n'],
      ['a\nb\nc\n', 'a\nb\nC\n'],
      ['a\nb\nc\n', 'a\nb\nc'],
      ['a\nb\nc', 'a\nb\nc\n'],
      ['\n', 'new\n\n'],
      ['\n\n\n', '\n\nx\n'],
      ['x', 'xy'],
    ];
    for (const [before, after] of cases) expect(unifiedDiff('f', before, after)).toEqual(whole('f', before, after));
    // No change: the headers alone, as before.
    expect(unifiedDiff('f', 'same\n', 'same\n')).toEqual(['--- f', '+++ f']);
  });

  it('diffs only the part that changed, with its margin, in a file of a hundred thousand lines', () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `    "/home/ana/p${i}": { "history": [] },`);
    const before = `{\n${lines.join('\n')}\n  "mcpServers": {}\n}\n`;
    const after = before.replace('"mcpServers": {}', '"mcpServers": {\n    "opsdesk": { "command": "node" }\n  }');
    const cut = middle(before, after, 16);
    expect(cut.skipped).toBe(100_001 - 16);
    expect(cut.before.split('\n').length).toBeLessThan(20);
    const shown = unifiedDiff('f', before, after);
    expect(shown).toEqual(whole('f', before, after));
    expect(shown.filter((l) => l.startsWith('@@'))).toEqual(['@@ -99998,6 +99998,8 @@']);
  });
});
