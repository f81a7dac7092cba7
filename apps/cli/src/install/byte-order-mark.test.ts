// A config saved with a byte-order mark (Notepad, some Windows tools) lost it on every install and
// uninstall: the strict UTF-8 decoding that reads the file dropped the mark before the edit could
// keep it, so "every other byte stays" did not hold for the first three. Run as the real CLI.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, nodeArgs } from '../../../opsdesk/test/harness.js';

const run = promisify(execFile);
let root = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ek-install-bom-'));
  await mkdir(join(root, 'Code', 'User'), { recursive: true });
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** `elicitkit <args>` as a process whose user configs are in the sandbox (VS Code's under XDG_CONFIG_HOME). */
function cli(args: string[]) {
  return run(process.execPath, nodeArgs(CLI, ...args), {
    env: { ...process.env, HOME: root, XDG_CONFIG_HOME: root },
    timeout: 60_000,
  });
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const ORIGINAL = Buffer.concat([
  BOM,
  Buffer.from('{\r\n\t// mine\r\n\t"servers": {\r\n\t\t"a": {"command": "x"},\r\n\t},\r\n}\r\n'),
]);

describe('a config that starts with a byte-order mark', () => {
  it('keeps it through install, and uninstall gives back the same bytes', async () => {
    const file = join(root, 'Code', 'User', 'mcp.json');
    await writeFile(file, ORIGINAL);
    await cli(['install', 'vscode', '--scope', 'user', '--', 'node', 'srv.js']);
    const installed = await readFile(file);
    expect(installed.subarray(0, 3)).toEqual(BOM);
    expect(parse(installed.subarray(3).toString('utf8'))).toMatchObject({
      servers: { a: { command: 'x' }, opsdesk: { command: 'node', args: ['srv.js'] } },
    });
    await cli(['uninstall', 'vscode', '--scope', 'user']);
    expect((await readFile(file)).equals(ORIGINAL)).toBe(true);
  });
});
