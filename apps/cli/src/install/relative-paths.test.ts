// `elicitkit install cursor -- node ./server.js` wrote "./server.js" into the config without a
// word, but clients start a server from a folder of their own (Claude Desktop from `/`), where it
// is not found. A relative path that names an existing file is now made absolute against the
// current folder, in one line on stderr; one written as a path that names no file (or a folder)
// is kept with a warning; flags, plain words and package names are left alone, silently.
// The built CLI in a child process, in a sandbox folder and HOME.
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/elicitkit.js', import.meta.url));

let root = '';
let cwd = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-relative-'));
  // The real path: that is what the CLI, run in it, sees as its current folder.
  cwd = await realpath(await mkdtemp(join(root, 'work-')));
  await mkdir(join(root, 'home'));
  await mkdir(join(cwd, 'bin'));
  await mkdir(join(cwd, 'data'));
  await writeFile(join(cwd, 'server.js'), '');
  await writeFile(join(cwd, 'conf.json'), '{}');
  await writeFile(join(cwd, 'bin', 'server'), '#!/bin/sh\n');
  await chmod(join(cwd, 'bin', 'server'), 0o755);
});
afterEach(() => rm(root, { recursive: true, force: true }));

function install(args: string[]) {
  const run = spawnSync(process.execPath, [BIN, 'install', 'cursor', ...args], {
    cwd,
    env: { ...process.env, HOME: join(root, 'home') },
    encoding: 'utf8',
  });
  return { code: run.status, out: run.stdout, err: run.stderr.split('\n').filter(Boolean) };
}

async function entry(name = 'opsdesk') {
  return JSON.parse(await readFile(join(cwd, '.cursor', 'mcp.json'), 'utf8')).mcpServers[name];
}

describe('install with a relative path in the server command', () => {
  it('writes ./server.js as an absolute path, and says so in one line', async () => {
    const { code, err } = install(['--', 'node', './server.js', '--stdio']);
    expect({ code, err }).toEqual({
      code: 0,
      err: [
        `note: resolved ./server.js → ${cwd}/server.js (against ${cwd}): the client starts the server from a folder of its own`,
      ],
    });
    expect(await entry()).toEqual({ command: 'node', args: [`${cwd}/server.js`, '--stdio'] });
  });

  it('resolves a relative command and every argument naming a file, and nothing else', async () => {
    const args = ['--config', 'conf.json', '-y', '@modelcontextprotocol/server-memory', 'data', 'plain'];
    const { code, err } = install(['--', 'bin/server', ...args]);
    expect({ code, err }).toEqual({
      code: 0,
      err: [
        `note: resolved bin/server → ${cwd}/bin/server, conf.json → ${cwd}/conf.json (against ${cwd}): the client starts the server from a folder of its own`,
      ],
    });
    expect(await entry()).toEqual({
      command: `${cwd}/bin/server`,
      args: ['--config', `${cwd}/conf.json`, '-y', '@modelcontextprotocol/server-memory', 'data', 'plain'],
    });
  });

  it('keeps a path that names no file, or a folder, as written and warns about each', async () => {
    const { code, err } = install(['--', './missing-server', './missing.js', '--root', './data']);
    expect({ code, err }).toEqual({
      code: 0,
      err: [
        `warning: ./missing-server names no file in ${cwd}; it is written as given, and the client will look for it from a folder of its own: give an absolute path if it is one`,
        `warning: ./missing.js names no file in ${cwd}; it is written as given, and the client will look for it from a folder of its own: give an absolute path if it is one`,
        `warning: ./data is a folder in ${cwd}; it is written as given, and the client will look for it from a folder of its own: give an absolute path if it is one`,
      ],
    });
    expect(await entry()).toEqual({ command: './missing-server', args: ['./missing.js', '--root', './data'] });
  });

  it('says nothing about a command of plain words and package names', async () => {
    const { code, err } = install(['--', 'npx', '-y', '@modelcontextprotocol/server-memory']);
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(await entry()).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] });
  });

  it('shows the absolute path in a dry run too, and writes nothing', async () => {
    const { code, out, err } = install(['--dry-run', '--', 'node', 'server.js']);
    expect(code).toBe(0);
    expect(err).toEqual([
      `note: resolved server.js → ${cwd}/server.js (against ${cwd}): the client starts the server from a folder of its own`,
    ]);
    expect(out).toContain(`+        "${cwd}/server.js"`);
    await expect(readFile(join(cwd, '.cursor', 'mcp.json'))).rejects.toThrow(/ENOENT/);
  });
});
