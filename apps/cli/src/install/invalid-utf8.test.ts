// A config holding bytes that are not UTF-8 (a Latin-1 "é" saved by an older editor) used to be
// decoded lossily, and install and uninstall wrote U+FFFD in place of those bytes in other servers'
// values. Such a file is refused, with the byte and its offset, and left as it was.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { install } from '../commands/install.js';
import { uninstall } from '../commands/uninstall.js';

let root = '';
let home = '';
let cwd = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-utf8-'));
  home = join(root, 'home');
  cwd = join(root, 'work');
  await mkdir(home);
  await mkdir(join(cwd, '.cursor'), { recursive: true });
});
afterEach(() => rm(root, { recursive: true, force: true }));

const env = () => ({ home, cwd, platform: 'linux' as const, appData: undefined });
const io = { out: () => {}, err: () => {} };

// "C:\Users\José\srv.exe" with é as the single Latin-1 byte 0xE9: not valid UTF-8.
const ORIGINAL = Buffer.concat([
  Buffer.from('{\n  "mcpServers": {\n    "mine": {"command": "C:\\\\Users\\\\Jos'),
  Buffer.from([0xe9]),
  Buffer.from('\\\\srv.exe", "args": []}\n  }\n}\n'),
]);

describe('bytes that are not UTF-8', () => {
  it('install neither rewrites them nor installs over them silently', async () => {
    const file = join(cwd, '.cursor', 'mcp.json');
    await writeFile(file, ORIGINAL);
    const code = await install(['cursor', '--', 'node', 'x.js'], io, { ...env(), defaultCommand: [] });
    const after = await readFile(file);
    // Either the file is refused and left alone, or the other server's bytes survive exactly.
    if (code === 0) expect(after.includes(Buffer.from([0x4a, 0x6f, 0x73, 0xe9]))).toBe(true);
    else expect(after.equals(ORIGINAL)).toBe(true);
    expect(after.includes(Buffer.from('\uFFFD'))).toBe(false);
  });

  it('install then uninstall gives back the same bytes', async () => {
    const file = join(cwd, '.cursor', 'mcp.json');
    await writeFile(file, ORIGINAL);
    const installed = await install(['cursor', '--', 'node', 'x.js'], io, { ...env(), defaultCommand: [] });
    if (installed !== 0) return; // refusing the file is a fix too: nothing was changed
    expect(await uninstall(['cursor'], io, env())).toBe(0);
    expect((await readFile(file)).equals(ORIGINAL)).toBe(true);
  });
});
