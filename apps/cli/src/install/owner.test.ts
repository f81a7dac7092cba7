// writeAtomically replaces the config by renaming a new file over it, and that new file belongs to
// whoever ran the command. Run with sudo, the user's own config (`~/.claude.json`, which Claude Code
// rewrites as it runs) used to end up owned by root (the .bak too). Owner and group are kept.
import { chown, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { install } from '../commands/install.js';
import { uninstall } from '../commands/uninstall.js';

// Only root can give a file another owner to keep: run as anyone else, the suite says it skips.
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.log('owner.test.ts: skipped, not running as root (it chowns a config to another user)');
let root = '';
let home = '';
let cwd = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-owner-'));
  home = join(root, 'home');
  cwd = join(root, 'work');
  await mkdir(home);
  await mkdir(cwd);
});
afterEach(() => rm(root, { recursive: true, force: true }));

const io = { out: () => {}, err: () => {} };
const env = () => ({ home, cwd, platform: 'linux' as const, appData: undefined });

describe.skipIf(!isRoot)('an existing config keeps its owner (needs root to set one up)', () => {
  it('install does not hand a user’s ~/.claude.json to root', async () => {
    const file = join(home, '.claude.json');
    await writeFile(file, '{\n  "numStartups": 3\n}\n', { mode: 0o600 });
    await chown(file, 1234, 1234);
    const code = await install(['claude-code', '--scope', 'user', '--', 'node', 'x.js'], io, {
      ...env(),
      defaultCommand: [],
    });
    expect(code).toBe(0);
    const s = await stat(file);
    expect({ uid: s.uid, gid: s.gid, mode: s.mode & 0o777 }).toEqual({ uid: 1234, gid: 1234, mode: 0o600 });
  });

  it('uninstall does not either', async () => {
    const file = join(cwd, '.mcp.json');
    await writeFile(file, '{\n  "mcpServers": {\n    "opsdesk": {"command": "x", "args": []}\n  }\n}\n', {
      mode: 0o664,
    });
    await chown(file, 1234, 1234);
    expect(await uninstall(['claude-code'], io, env())).toBe(0);
    const s = await stat(file);
    expect({ uid: s.uid, gid: s.gid }).toEqual({ uid: 1234, gid: 1234 });
  });
});
