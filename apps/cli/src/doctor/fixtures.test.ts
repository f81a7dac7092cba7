import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OPSDESK_FIXTURES } from './fixtures/opsdesk.js';
import { FixtureError, parseFixtures, readFixtures } from './fixtures.js';

describe('fixtures, short form', () => {
  it('takes one set of arguments, or a list, per tool', () => {
    const f = parseFixtures({ a: { x: 1 }, b: [{}, { y: 'z' }] }, 'f.json');
    expect(f.get('a')).toEqual([{ label: '{"x":1}', arguments: { x: 1 } }]);
    expect(f.get('b')?.map((c) => c.label)).toEqual(['{}', '{"y":"z"}']);
  });

  it('keeps a tool or an argument named __proto__ an ordinary key', () => {
    const f = parseFixtures(JSON.parse('{"__proto__": {"__proto__": 1}}'), 'f.json');
    const args = f.get('__proto__')?.[0]?.arguments ?? {};
    expect(Object.keys(args)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
  });
});

describe('fixtures, full form', () => {
  it('reads labels, arguments and preparations', () => {
    const f = parseFixtures(
      {
        version: 2,
        description: 'x',
        tools: {
          sync: [
            {
              label: 'conflict',
              arguments: { path: 'a.md' },
              prepare: { write: { 'w/l/a.md': 'L', 'w/r/a.md': 'R' } },
            },
          ],
          other: [{}],
        },
      },
      'f.json',
    );
    expect(f.get('sync')).toEqual([
      {
        label: 'conflict',
        arguments: { path: 'a.md' },
        prepare: {
          write: [
            { file: 'w/l/a.md', text: 'L' },
            { file: 'w/r/a.md', text: 'R' },
          ],
        },
      },
    ]);
    expect(f.get('other')).toEqual([{ label: '{}', arguments: {} }]);
  });

  it.each([
    [[], 'f.json: expected an object of tool name → arguments'],
    [{ a: 'x' }, 'f.json: a: the arguments must be an object'],
    [{ a: [] }, 'f.json: a: give at least one set of arguments'],
    [{ a: [{}, 3] }, 'f.json: a[1]: the arguments must be an object'],
    [{ version: 3, tools: {} }, 'f.json: version: must be 2, not 3'],
    [{ version: 2, tool: {} }, 'f.json: tool: unknown key (expected version, tools)'],
    [{ version: 2, tools: [] }, 'f.json: tools: expected an object of tool name → list of cases'],
    [{ version: 2, tools: { a: {} } }, 'f.json: tools.a: expected a non-empty list of cases'],
    [
      { version: 2, tools: { a: [{ args: {} }] } },
      'f.json: tools.a[0].args: unknown key (expected label, arguments, prepare)',
    ],
    [{ version: 2, tools: { a: [{ arguments: [] }] } }, 'f.json: tools.a[0].arguments: must be an object'],
    [{ version: 2, tools: { a: [{ label: ' ' }] } }, 'f.json: tools.a[0].label: must be non-empty text'],
    [
      { version: 2, tools: { a: [{ prepare: { run: 'x' } }] } },
      'f.json: tools.a[0].prepare.run: unknown key (expected write)',
    ],
    [
      { version: 2, tools: { a: [{ prepare: { write: {} } }] } },
      'f.json: tools.a[0].prepare.write: expected a non-empty object',
    ],
    [
      { version: 2, tools: { a: [{ prepare: { write: { '../x': 'y' } } }] } },
      'must name a file inside the data directory',
    ],
    [
      { version: 2, tools: { a: [{ prepare: { write: { 'a/../../x': 'y' } } }] } },
      'must name a file inside the data directory',
    ],
    [
      { version: 2, tools: { a: [{ prepare: { write: { '/etc/x': 'y' } } }] } },
      'must be relative to the data directory',
    ],
    [{ version: 2, tools: { a: [{ prepare: { write: { 'C:x': 'y' } } }] } }, 'must be relative to the data directory'],
    [{ version: 2, tools: { a: [{ prepare: { write: { 'a\\b': 'y' } } }] } }, 'use forward slashes'],
    [{ version: 2, tools: { a: [{ prepare: { write: { 'a\u0000': 'y' } } }] } }, 'without NUL bytes'],
    [
      { version: 2, tools: { a: [{ prepare: { write: { 'dir/': 'y' } } }] } },
      'must name a file inside the data directory',
    ],
    [
      { version: 2, tools: { a: [{ prepare: { write: { a: 1 } } }] } },
      'tools.a[0].prepare.write["a"]: the content must be text',
    ],
  ])('%j is refused: %s', (raw, message) => {
    expect(() => parseFixtures(raw, 'f.json')).toThrow(FixtureError);
    expect(() => parseFixtures(raw, 'f.json')).toThrow(message);
  });

  it('reads a file, and names it when it is not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ nope');
    expect(() => readFixtures(bad)).toThrow(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    try {
      readFixtures(bad);
    } catch (error) {
      expect((error as FixtureError).code).toBe('BAD_FIXTURES');
    }
  });
});

describe('the shipped fixtures', () => {
  it('opsdesk: every tool, the sync conflict prepared on both sides', () => {
    const f = parseFixtures(OPSDESK_FIXTURES, 'opsdesk');
    expect([...f.keys()]).toEqual([
      'deploy_service',
      'list_deployments',
      'execute_sql',
      'sync_file',
      'weekly_report',
      'register_user',
    ]);
    expect(f.get('sync_file')?.[0]?.prepare?.write.map((w) => w.file)).toEqual([
      'workspace/local/notes/plan.md',
      'workspace/remote/notes/plan.md',
    ]);
  });

  it('server-everything: valid', () => {
    const path = fileURLToPath(new URL('../../test/fixtures/server-everything.json', import.meta.url));
    expect([...readFixtures(path).keys()]).toEqual(['trigger-url-elicitation']);
  });
});
