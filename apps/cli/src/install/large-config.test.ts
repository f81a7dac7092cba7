// ~/.claude.json holds Claude Code's project history and grows to tens of megabytes. Install and
// uninstall parsed all of it into a tree up to four times per planning (the check, the comments
// note, each removal, the check after), and planned twice (before and under the lock): on 50 MB,
// uninstall took ~40 s and 2.8 GB. Now the file is scanned once without a tree, only the servers
// object is parsed, and the locked pass reuses the plan when the file did not change. No clock is
// read here: the parser is wrapped to count how much text it is handed, and the built CLI's edit
// of a 3 MB file is checked byte for byte.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { install } from '../commands/install.js';
import { uninstall } from '../commands/uninstall.js';

/** Characters handed to jsonc-parser's whole-text readers (parseTree, visit) since the last reset. */
const read = vi.hoisted(() => ({ chars: 0, diffed: 0 }));
// And the characters handed to the diff a dry run prints (jsdiff's line diff, both texts).
vi.mock('diff', async (original) => {
  const diff = await original<typeof import('diff')>();
  type Patcher = (a: string, b: string, c: string, d: string, ...rest: unknown[]) => unknown;
  const counted =
    (f: Patcher): Patcher =>
    (a, b, c, d, ...rest) => {
      read.diffed += c.length + d.length;
      return f(a, b, c, d, ...rest);
    };
  return {
    ...diff,
    structuredPatch: counted(diff.structuredPatch as never),
    createTwoFilesPatch: counted(diff.createTwoFilesPatch as never),
    createPatch: counted(diff.createPatch as never),
  };
});
vi.mock('jsonc-parser', async (original) => {
  const parser = await original<typeof import('jsonc-parser')>();
  return {
    ...parser,
    parseTree: (
      text: string,
      ...rest: Parameters<typeof parser.parseTree> extends [string, ...infer R] ? R : never
    ) => {
      read.chars += text.length;
      return parser.parseTree(text, ...rest);
    },
    visit: (text: string, ...rest: Parameters<typeof parser.visit> extends [string, ...infer R] ? R : never) => {
      read.chars += text.length;
      return parser.visit(text, ...rest);
    },
  };
});

const BIN = fileURLToPath(new URL('../../bin/elicitkit.js', import.meta.url));
const SERVERS = '  "mcpServers": {\n    "memory": {\n      "command": "npx",\n      "args": []\n    }\n  }';
const WITH_OPSDESK =
  '  "mcpServers": {\n    "memory": {\n      "command": "npx",\n      "args": []\n    },\n    "opsdesk": {\n      "type": "stdio",\n      "command": "node",\n      "args": [\n        "/srv/x.js"\n      ]\n    }\n  }';

/**
 * A ~/.claude.json of about `size` characters: many projects with a history each (and their own,
 * empty "mcpServers", which must be left alone), then the servers.
 */
function claudeJson(size: number): string {
  const projects: string[] = [];
  const history = Array.from(
    { length: 20 },
    (_, i) => `{"display": "fix test ${i} \\"now\\" é", "pastedContents": {}}`,
  );
  for (let i = 0, length = 0; length < size; i++) {
    const project = `    "/home/ana/work/p${i}": {\n      "history": [${history.join(', ')}],\n      "mcpServers": {}\n    }`;
    projects.push(project);
    length += project.length;
  }
  return `{\n  "numStartups": 3,\n  "projects": {\n${projects.join(',\n')}\n  },\n${SERVERS},\n  "userID": "abc"\n}\n`;
}

let root = '';
let home = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-large-'));
  home = join(root, 'home');
  await mkdir(home);
  await mkdir(join(root, 'work'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const io = { out: () => {}, err: () => {} };
const env = () => ({ home, cwd: join(root, 'work'), platform: 'linux' as const, appData: undefined });

describe('a large ~/.claude.json', () => {
  it('is read through once per command: install, a replacement keeping own settings, uninstall', async () => {
    const file = join(home, '.claude.json');
    const before = claudeJson(2_000_000);
    await writeFile(file, before);
    const commands = [
      () =>
        install(['claude-code', '--scope', 'user', '--', 'node', '/srv/x.js'], io, { ...env(), defaultCommand: [] }),
      async () => {
        // An entry with settings of its own takes the path that edits it key by key.
        const text = await readFile(file, 'utf8');
        await writeFile(file, text.replace('"type": "stdio",', '"type": "stdio",\n      "env": {"TOKEN": "t"},'));
        return install(['claude-code', '--scope', 'user', '--', 'node', '/srv/y.js'], io, {
          ...env(),
          defaultCommand: [],
        });
      },
      () => uninstall(['claude-code', '--scope', 'user'], io, env()),
    ];
    for (const command of commands) {
      read.chars = 0;
      expect(await command()).toBe(0);
      // The file once, and the servers object (a few hundred characters) a few times.
      expect(read.chars).toBeGreaterThan(before.length);
      expect(read.chars).toBeLessThan(before.length + 10_000);
    }
  });

  it('a dry run diffs the lines around the edit, not the whole file: install and uninstall print the same diff as before', async () => {
    const file = join(home, '.claude.json');
    const before = claudeJson(2_000_000);
    await writeFile(file, before);
    const lines: string[] = [];
    const printed = { out: (line: string) => lines.push(line), err: () => {} };
    const dryRuns = [
      () =>
        install(['claude-code', '--scope', 'user', '--dry-run', '--', 'node', '/srv/x.js'], printed, {
          ...env(),
          defaultCommand: [],
        }),
      () => uninstall(['claude-code', '--scope', 'user', '--name', 'memory', '--dry-run'], printed, env()),
    ];
    for (const dryRun of dryRuns) {
      read.diffed = 0;
      lines.length = 0;
      expect(await dryRun()).toBe(0);
      expect(read.diffed).toBeGreaterThan(0);
      expect(read.diffed).toBeLessThan(10_000);
      // One hunk, where the servers are: among the file's last lines (numbered in the whole file).
      const hunks = lines.filter((l) => l.startsWith('@@'));
      expect(hunks).toHaveLength(1);
      const from = Number(/^@@ -(\d+),/.exec(hunks[0] as string)?.[1]);
      expect(from).toBeGreaterThan(before.split('\n').length - 20);
      expect(lines).toContain('   "mcpServers": {');
    }
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('gets exactly the edit, every other byte kept, from the built CLI', async () => {
    const file = join(home, '.claude.json');
    const before = claudeJson(3_000_000);
    await writeFile(file, before);
    const elicitkit = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], {
        cwd: join(root, 'work'),
        env: { ...process.env, HOME: home },
        encoding: 'utf8',
      });

    const installed = elicitkit('install', 'claude-code', '--scope', 'user', '--', 'node', '/srv/x.js');
    expect({ code: installed.status, err: installed.stderr }).toEqual({ code: 0, err: '' });
    expect(await readFile(file, 'utf8')).toBe(before.replace(SERVERS, WITH_OPSDESK));

    const removed = elicitkit('uninstall', 'claude-code', '--scope', 'user');
    expect({ code: removed.status, err: removed.stderr }).toEqual({ code: 0, err: '' });
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});
