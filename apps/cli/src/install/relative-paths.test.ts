// `elicitkit install cursor -- node ./server.js` wrote "./server.js" into the config without a
// word, but clients start a server from a folder of their own (Claude Desktop from `/`), where it
// is not found. In a user's own config, a relative path that names an existing file is now made
// absolute against the current folder, in one line on stderr; in a project's config (shared with
// the project), a file inside the project stays relative to it (`${workspaceFolder}/…` for VS
// Code), said so, and one outside it is made absolute with a warning. One written as a path that
// names no file (or a folder) is kept with a warning; flags, plain words and package names are
// left alone, silently.
// The built CLI in a child process, in a sandbox folder and HOME.
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** What VS Code fills in with the project's folder. */
const WORKSPACE = '$' + '{workspaceFolder}';
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

function install(args: string[], client = 'cursor', scope = 'user') {
  const run = spawnSync(process.execPath, [BIN, 'install', client, '--scope', scope, ...args], {
    cwd,
    env: { ...process.env, HOME: join(root, 'home') },
    encoding: 'utf8',
  });
  return { code: run.status, out: run.stdout, err: run.stderr.split('\n').filter(Boolean) };
}

/** The entry in Cursor's user config, or in `file` under `key`. */
async function entry(file = join(root, 'home', '.cursor', 'mcp.json'), key = 'mcpServers') {
  return JSON.parse(await readFile(file, 'utf8'))[key].opsdesk;
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

  it("resolves a flag's value given in the same word (--config=conf.json), and nothing else of it", async () => {
    const { code, err } = install(['--', 'node', '--config=conf.json', '--mode=fast', '--out=./data', '-x=']);
    expect({ code, err }).toEqual({
      code: 0,
      err: [
        `note: resolved conf.json → ${cwd}/conf.json (against ${cwd}): the client starts the server from a folder of its own`,
        `warning: ./data is a folder in ${cwd}; it is written as given, and the client will look for it from a folder of its own: give an absolute path if it is one`,
      ],
    });
    expect(await entry()).toEqual({
      command: 'node',
      args: [`--config=${cwd}/conf.json`, '--mode=fast', '--out=./data', '-x='],
    });
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
    await expect(readFile(join(root, 'home', '.cursor', 'mcp.json'))).rejects.toThrow(/ENOENT/);
  });
});

describe("install with a relative path into a project's config (shared with the project)", () => {
  it('keeps a file inside the project relative, and says so; a file outside it is made absolute, with a warning', async () => {
    await writeFile(join(root, 'outside.js'), '');
    const { code, err } = install(['--', 'node', './server.js', '--config', '../outside.js'], 'cursor', 'project');
    expect({ code, err }).toEqual({
      code: 0,
      err: [
        `note: resolved ../outside.js → ${root}/outside.js (against ${cwd}): the client starts the server from a folder of its own`,
        "note: kept ./server.js relative to the project, whose config is shared: the client looks for it from the folder it starts the server in (the project's, for Claude Code); with --scope user, it is written as an absolute path",
        `warning: ../outside.js is outside the project (${cwd}): it is written as ${root}/outside.js, a path on this machine, into a config the project shares`,
      ],
    });
    expect(await entry(join(cwd, '.cursor', 'mcp.json'))).toEqual({
      command: 'node',
      args: ['./server.js', '--config', `${root}/outside.js`],
    });
  });

  it('a file of the project whose name starts with two dots is inside it: kept relative, no warning', async () => {
    await writeFile(join(cwd, '..srv.js'), '');
    await mkdir(join(cwd, '..tools'));
    await writeFile(join(cwd, '..tools', 'run.js'), '');
    const { code, err } = install(['--', 'node', '..srv.js', '..tools/run.js'], 'cursor', 'project');
    expect(code).toBe(0);
    expect(err.filter((line) => line.startsWith('warning:'))).toEqual([]);
    expect(await entry(join(cwd, '.cursor', 'mcp.json'))).toEqual({
      command: 'node',
      args: ['..srv.js', '..tools/run.js'],
    });
  });

  it('VS Code: a file inside the project is written relative to the workspace folder, which VS Code fills in', async () => {
    const { code, err } = install(['--', 'bin/server', '--config', 'conf.json'], 'vscode', 'project');
    expect({ code, err }).toEqual({
      code: 0,
      err: [
        `note: resolved bin/server → ${WORKSPACE}/bin/server, conf.json → ${WORKSPACE}/conf.json (against ${cwd}): the client starts the server from a folder of its own`,
      ],
    });
    expect(await entry(join(cwd, '.vscode', 'mcp.json'), 'servers')).toEqual({
      type: 'stdio',
      command: `${WORKSPACE}/bin/server`,
      args: ['--config', `${WORKSPACE}/conf.json`],
    });
  });
});
