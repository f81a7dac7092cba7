import { describe, expect, it } from 'vitest';
import { type EditPlan, type EditTarget, planEdit, planRemove } from './plan-edit.js';

const entry = { command: 'node', args: ['s.js'] };
const target: EditTarget = { rootKey: 'mcpServers', name: 'opsdesk', entry, jsonc: false };
const jsonc: EditTarget = { ...target, rootKey: 'servers', jsonc: true };

function text(plan: EditPlan): string {
  if (plan.kind !== 'add' && plan.kind !== 'replace') throw new Error(`expected a change, got ${plan.kind}`);
  return plan.text;
}

describe('planEdit layout', () => {
  it('starts a new file with two spaces and a final newline', () => {
    expect(text(planEdit(undefined, target))).toBe(
      '{\n  "mcpServers": {\n    "opsdesk": {\n      "command": "node",\n      "args": [\n        "s.js"\n      ]\n    }\n  }\n}\n',
    );
  });

  it('treats a blank file as a new one', () => {
    expect(text(planEdit(' \n', target))).toBe(text(planEdit(undefined, target)));
  });

  it('follows tabs and CRLF line endings', () => {
    const before = '{\r\n\t"mcpServers": {\r\n\t\t"a": {}\r\n\t}\r\n}\r\n';
    expect(text(planEdit(before, target))).toBe(
      '{\r\n\t"mcpServers": {\r\n\t\t"a": {},\r\n\t\t"opsdesk": {\r\n\t\t\t"command": "node",\r\n\t\t\t"args": [\r\n\t\t\t\t"s.js"\r\n\t\t\t]\r\n\t\t}\r\n\t}\r\n}\r\n',
    );
  });

  it('follows four-space indentation', () => {
    const before = '{\n    "mcpServers": {\n        "a": {}\n    }\n}\n';
    expect(text(planEdit(before, target))).toContain('\n        "opsdesk": {\n            "command": "node",\n');
  });

  it('keeps objects written on one line on one line', () => {
    expect(text(planEdit('{"mcpServers": {"a": {}}}', target))).toBe(
      '{"mcpServers": {"a": {}, "opsdesk": {"command": "node", "args": ["s.js"]}}}',
    );
    expect(text(planEdit('{"mcpServers": {}}', target))).toBe(
      '{"mcpServers": {"opsdesk": {"command": "node", "args": ["s.js"]}}}',
    );
    expect(text(planEdit('{"x": 1}', target))).toBe(
      '{"x": 1, "mcpServers": {"opsdesk": {"command": "node", "args": ["s.js"]}}}',
    );
  });

  it('opens up an empty root and an empty server list', () => {
    expect(text(planEdit('{}', target))).toBe(text(planEdit(undefined, target)).trimEnd());
    expect(text(planEdit('{\n  "mcpServers": {}\n}\n', target))).toBe(text(planEdit(undefined, target)));
  });

  it('keeps a comment inside an empty server list', () => {
    const after = text(planEdit('{\n  "servers": {\n    // none yet\n  }\n}\n', jsonc));
    expect(after).toMatch(
      /^\{\n {2}"servers": \{\n {4}"opsdesk": \{\n[\s\S]*\n {4}\}\n {4}\/\/ none yet\n {2}\}\n\}\n$/,
    );
  });

  it('adds after the last server’s same-line comment, keeping trailing commas', () => {
    const before = '{\n  "servers": {\n    "a": {"url": "u"}, /* x */ // note\n  },\n}\n';
    expect(text(planEdit(before, jsonc))).toBe(
      '{\n  "servers": {\n    "a": {"url": "u"}, /* x */ // note\n    "opsdesk": {\n      "command": "node",\n      "args": [\n        "s.js"\n      ]\n    },\n  },\n}\n',
    );
  });

  it('adds a comma before a same-line comment when the file has no trailing commas', () => {
    const before = '{\n  "mcpServers": {\n    "a": {} // keep me here\n  }\n}\n';
    expect(text(planEdit(before, target))).toMatch(/"a": \{\}, \/\/ keep me here\n {4}"opsdesk": \{/);
  });

  it('keeps a byte-order mark', () => {
    expect(text(planEdit('\uFEFF{}', target)).startsWith('\uFEFF{\n  "mcpServers"')).toBe(true);
  });
});

describe('planEdit decisions', () => {
  it('replaces a different entry in place and leaves its neighbours alone', () => {
    const before = '{\n  "mcpServers": {\n    "opsdesk": {"command": "old"},\n    "b": {"command": "b"}\n  }\n}\n';
    expect(planEdit(before, target)).toEqual({
      kind: 'replace',
      text: '{\n  "mcpServers": {\n    "opsdesk": {\n      "command": "node",\n      "args": [\n        "s.js"\n      ]\n    },\n    "b": {"command": "b"}\n  }\n}\n',
      notes: [],
    });
  });

  it('calls an equal entry unchanged whatever its key order or layout', () => {
    expect(planEdit('{"mcpServers": {"opsdesk": {"args": ["s.js"], "command": "node"}}}', target).kind).toBe(
      'unchanged',
    );
  });

  it('sees wrong types as different; the entry’s own settings are not a difference', () => {
    const differs = (value: string) => planEdit(`{"mcpServers": {"opsdesk": ${value}}}`, target).kind;
    expect(differs('{"command": "node", "args": ["s.js"], "env": {}}')).toBe('unchanged');
    expect(differs('{"command": "node", "args": ["s.js"], "type": "stdio"}')).toBe('replace');
    expect(differs('{"command": "node", "args": "s.js"}')).toBe('replace');
    expect(differs('"node s.js"')).toBe('replace');
  });

  it('keeps the entry’s own settings (env, cwd, disabled) where it changes how the server starts, each byte of them', () => {
    const before =
      '{\n  "mcpServers": {\n    "opsdesk": {\n      "command": "npx",\n      // pinned\n      "args": ["opsdesk@1"],\n      "env": {"API_KEY": "k-123"},\n      "cwd": "/srv",\n      "type": "stdio"\n    }\n  }\n}\n';
    const plan = planEdit(before, target);
    expect(plan).toMatchObject({
      kind: 'replace',
      notes: [
        'the file has comments or trailing commas (first at line 5, column 7); this client may not accept them',
        "kept the entry's own env, cwd",
      ],
    });
    expect(text(plan)).toBe(
      '{\n  "mcpServers": {\n    "opsdesk": {\n      "command": "node",\n      // pinned\n      "args": [\n        "s.js"\n      ],\n      "env": {"API_KEY": "k-123"},\n      "cwd": "/srv"\n    }\n  }\n}\n',
    );
    expect(JSON.parse(text(plan).replace('      // pinned\n', '')).mcpServers.opsdesk).toEqual({
      ...entry,
      env: { API_KEY: 'k-123' },
      cwd: '/srv',
    });
  });

  it('lets a stdio entry’s own settings go, and says so, when the server is now reached by URL', () => {
    const before = '{"mcpServers": {"opsdesk": {"command": "npx", "args": [], "env": {"API_KEY": "k"}}}}';
    const plan = planEdit(before, { ...target, entry: { url: 'https://ops.example.com/mcp' } });
    expect(plan.kind).toBe('replace');
    expect(plan).toMatchObject({
      notes: [
        "the entry's own env went with it: they were for a command it started (the previous version is kept beside the file)",
      ],
    });
    expect(JSON.parse(text(plan)).mcpServers.opsdesk).toEqual({ url: 'https://ops.example.com/mcp' });
  });

  // Was: replaced whole, both env objects gone without a note.
  it('refuses an entry with a key twice, naming it where it repeats: which one to keep is the user’s to say', () => {
    const twice = (value: string) => planEdit(`{"mcpServers": {"opsdesk": ${value}}}`, target);
    expect(twice('{"command": "npx",\n "env": {"A": "1"},\n "env": {"B": "2"}}')).toEqual({
      kind: 'refused',
      reason:
        'the entry "opsdesk" has "env" twice (a client reads only the last, and elicitkit does not choose for you): remove one of them',
      line: 3,
      column: 2,
    });
    // Whatever the key, one install writes or one of the entry's own, and even where the entry is otherwise the same.
    expect(twice('{"command": "node", "args": ["s.js"], "command": "node"}')).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('has "command" twice'),
    });
    expect(twice('{"url": "https://x", "cwd": "/a", "cwd": "/b"}')).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('has "cwd" twice'),
    });
    // Keys repeated deeper (inside env) are the entry's own settings' business: kept, byte for byte.
    const deeper = '{"mcpServers": {"opsdesk": {"command": "npx", "env": {"A": "1", "A": "2"}}}}';
    expect(text(planEdit(deeper, target))).toContain('"env": {"A": "1", "A": "2"}');
  });

  it('edits the last of duplicate server names, the one clients read', () => {
    const before = '{"mcpServers": {"opsdesk": {"command": "node", "args": ["s.js"]}, "opsdesk": {}}}';
    expect(text(planEdit(before, target))).toBe(
      '{"mcpServers": {"opsdesk": {"command": "node", "args": ["s.js"]}, "opsdesk": {"command": "node", "args": ["s.js"]}}}',
    );
  });

  it('leaves nested mcpServers keys (Claude Code’s per-project ones) alone', () => {
    const before = '{\n  "projects": {\n    "/p": {\n      "mcpServers": {}\n    }\n  }\n}\n';
    const after = text(planEdit(before, target));
    expect(
      after.startsWith('{\n  "projects": {\n    "/p": {\n      "mcpServers": {}\n    }\n  },\n  "mcpServers": {'),
    ).toBe(true);
  });

  it('notes comments or trailing commas in files whose clients read plain JSON', () => {
    const before = '{\n  // mine\n  "mcpServers": {}\n}\n';
    expect(planEdit(before, target)).toMatchObject({
      kind: 'add',
      notes: ['the file has comments or trailing commas (first at line 2, column 3); this client may not accept them'],
    });
    expect(planEdit(before, { ...target, jsonc: true })).toMatchObject({ kind: 'add', notes: [] });
  });
});

describe('planEdit refusals', () => {
  it('refuses syntax errors with their line and column', () => {
    expect(planEdit('{\n  "mcpServers": {\n    "a": {}\n    "b": {}\n  }\n}\n', target)).toEqual({
      kind: 'refused',
      reason: 'comma expected',
      line: 4,
      column: 5,
    });
    expect(planEdit('{"mcpServers": {', target)).toMatchObject({ kind: 'refused', line: 1, column: 17 });
  });

  it('refuses a root that is not an object', () => {
    expect(planEdit('\n[]\n', target)).toEqual({
      kind: 'refused',
      reason: 'the top-level value is an array, not an object',
      line: 2,
      column: 1,
    });
    expect(planEdit('null', target)).toMatchObject({ reason: 'the top-level value is null, not an object' });
  });

  it('refuses a server list that is not an object', () => {
    expect(planEdit('{\n  "servers": ["a"]\n}', jsonc)).toEqual({
      kind: 'refused',
      reason: '"servers" is an array, not an object of servers',
      line: 2,
      column: 14,
    });
    expect(planEdit('{"mcpServers": null}', target)).toMatchObject({ kind: 'refused' });
  });

  // Was: a file nested 200,000 deep overflowed the stack ("Maximum call stack size exceeded").
  it('refuses values nested deeper than any config, where they open, before anything recurses into them', () => {
    const deep = `{\n  "other": ${'['.repeat(200_000)}${']'.repeat(200_000)}\n}`;
    const refused = {
      kind: 'refused',
      reason: expect.stringMatching(/nest deeper than 512 levels/),
      line: 2,
      column: 523,
    };
    expect(planEdit(deep, target)).toEqual(refused);
    expect(planRemove(deep, 'mcpServers', 'x')).toEqual(refused);
    // 512 levels are read; brackets in strings and comments are not levels.
    const at512 = `{"a": ${'['.repeat(511)}${']'.repeat(511)}}`;
    expect(planEdit(at512, target).kind).toBe('add');
    const quoted = `{"a": "${'[\\"{'.repeat(2_000)}", /* ${'{'.repeat(2_000)} */\n// ${'['.repeat(2_000)}\n"b": 1}`;
    expect(planEdit(quoted, jsonc).kind).toBe('add');
  });

  // Was: a `//` comment ended only at an LF and a string only at its closing quote, where the
  // parser ends a comment at a CR too and an unclosed string at either: the brackets after were
  // read by it, not counted, and 200,000 of them overflowed the stack.
  it('reads comments and strings as the parser does: a // comment ends at a CR, an unclosed string at a line break', () => {
    const deep = '['.repeat(200_000);
    const refusedAt = (line: number, column: number) => ({
      kind: 'refused',
      reason: expect.stringMatching(/nest deeper than 512 levels/),
      line,
      column,
    });
    for (const lineEnd of ['\r', '\r\n', '\n']) {
      const comment = `{"a": 1, // note${lineEnd}"b": ${deep}}`;
      expect(planEdit(comment, jsonc), JSON.stringify(lineEnd)).toEqual(refusedAt(2, 517));
      expect(planRemove(comment, 'servers', 'x')).toEqual(refusedAt(2, 517));
      const unclosed = `{"a": "x${lineEnd}"b": ${deep}}`;
      expect(planEdit(unclosed, jsonc), JSON.stringify(lineEnd)).toEqual(refusedAt(2, 517));
    }
    // A backslash takes the next character, a line break too: the string goes on, its brackets no levels.
    const escaped = `{"a": "x\\\n${'['.repeat(2_000)}"}`;
    expect(planEdit(escaped, jsonc)).toMatchObject({ kind: 'refused', reason: 'invalid escape character' });
  });
});
