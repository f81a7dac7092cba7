// Where the user scope is written:
// 1. VS Code (and Claude Desktop) on Linux keep their user data under $XDG_CONFIG_HOME when it is
//    set (process.env.XDG_CONFIG_HOME || ~/.config); install used to ignore it.
// 2. HOME set but empty (`env HOME= …`, some service managers): os.homedir() returns '' and the
//    "user" config used to become a relative path, written into the current project instead.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { install } from '../commands/install.js';

let root = '';
let home = '';
let cwd = '';
const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-paths-'));
  home = join(root, 'home');
  cwd = join(root, 'work');
  await mkdir(home);
  await mkdir(cwd);
});
afterEach(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await rm(root, { recursive: true, force: true });
});

function collect() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

describe('vscode --scope user on Linux', () => {
  it('writes under $XDG_CONFIG_HOME/Code/User when XDG_CONFIG_HOME is set, as VS Code reads it', async () => {
    const xdg = join(root, 'xdg');
    process.env.XDG_CONFIG_HOME = xdg;
    const { io } = collect();
    // Only home and cwd are injected (the sandbox); the environment is read as on a real machine.
    const code = await install(['vscode', '--scope', 'user', '--', 'node', 'x.js'], io, {
      home,
      cwd,
      platform: 'linux',
      appData: undefined,
      defaultCommand: [],
    });
    expect(code).toBe(0);
    expect(existsSync(join(xdg, 'Code', 'User', 'mcp.json'))).toBe(true);
    expect(existsSync(join(home, '.config', 'Code', 'User', 'mcp.json'))).toBe(false);
  });
});

describe('HOME set to the empty string', () => {
  it('never turns a user-scope config into a file in the current directory', async () => {
    process.env.HOME = '';
    const { io, out, err } = collect();
    // --dry-run: nothing is written anywhere, not even the real home a fix might fall back to.
    const code = await install(['cursor', '--scope', 'user', '--dry-run', '--', 'node', 'x.js'], io, {
      cwd,
      platform: 'linux',
      appData: undefined,
      defaultCommand: [],
    });
    if (code === 0) {
      // The path it would write is printed first: it must be absolute (a real home), not ".cursor/mcp.json".
      const target = /to (\S+) \(cursor, user scope\)/.exec(out[0] ?? '')?.[1];
      expect(target, out.join('\n')).toBeDefined();
      expect(isAbsolute(target as string), `would write ${target}`).toBe(true);
    } else {
      expect(err.join('\n')).toMatch(/HOME/);
    }
  });
});
