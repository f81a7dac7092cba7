/**
 * What install prints of a config's own text — the diff of a dry run, a key named in a note or a
 * refusal, a symlink's target in an error — goes through the terminal renderer's filter, as every
 * server text does in `call` and `doctor`. Was: printed raw, so a JSONC comment holding
 * `ESC]52;c;…BEL` set the clipboard, and `ESC[2K ESC[1A` in a key hid the lines above it. A
 * cloned project's `.vscode/mcp.json` is anyone's to write. `install` and `uninstall` as the CLI
 * runs them, in a sandbox home.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSandbox } from '../../test/install-sandbox.js';
import { uninstall } from '../commands/uninstall.js';

const box = installSandbox(['node', 'server.js']);

/** Writes the clipboard (OSC 52), then clears the line and moves up over the one before. */
const CLIPBOARD = '\u001b]52;c;ZWNobyBoaQ==\u0007';
const HIDE = '\u001b[2K\u001b[1A';

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Lines that a terminal shows as they are: no control character, and one line each. */
function inert(lines: string[]): void {
  for (const line of lines) expect(line, JSON.stringify(line)).not.toMatch(CONTROL);
}

async function project(folder: string, text: string): Promise<string> {
  await mkdir(join(box.env.cwd, folder));
  const file = join(box.env.cwd, folder, 'mcp.json');
  await writeFile(file, text);
  return file;
}

describe("a config's text on the terminal", () => {
  it('install --dry-run: the diff shows comments with escape sequences as text, each line one line', async () => {
    await project(
      '.vscode',
      `{\n  // ${CLIPBOARD} clipboard\n  // ${HIDE} hidden\n  /* one\r+ fake line */\n  "servers": {\n    "other": {"command": "x"}\n  }\n}\n`,
    );
    const r = await box.run(['vscode', '--dry-run', '--', 'node', 'srv.js']);
    expect(r.code, r.err.join('\n')).toBe(0);
    inert([...r.out, ...r.err]);
    expect(r.out).toContain('   // ]52;c;ZWNobyBoaQ== clipboard');
    expect(r.out).toContain('   // [2K[1A hidden');
    expect(r.out).toContain('   /* one + fake line */');
  });

  it('install: a key of the entry named in a note is cleaned, and stays on the note’s line', async () => {
    const file = await project(
      '.cursor',
      `${JSON.stringify({
        mcpServers: {
          opsdesk: { command: 'npx', args: [], [`${HIDE}${CLIPBOARD}cwd`]: '/srv', 'x\nelicitkit: done': 1 },
        },
      })}\n`,
    );
    const r = await box.run(['cursor', '--', 'node', 'srv.js']);
    expect(r.code, r.err.join('\n')).toBe(0);
    inert([...r.out, ...r.err]);
    expect(r.err).toEqual([`note: ${file}: kept the entry's own [2K[1A]52;c;ZWNobyBoaQ==cwd, x elicitkit: done`]);
  });

  it('install: a refusal naming a key is cleaned, on one line', async () => {
    const key = JSON.stringify(`${HIDE}env\nelicitkit: done`);
    const text = `{"mcpServers": {"opsdesk": {"command": "npx", ${key}: {}, ${key}: {}}}}\n`;
    const file = await project('.cursor', text);
    const r = await box.run(['cursor', '--', 'node', 'srv.js']);
    expect(r.code).toBe(1);
    inert([...r.out, ...r.err]);
    expect(r.err[0]).toBe(
      `elicitkit: ${file}:1:${text.lastIndexOf(key) + 1}: the entry "opsdesk" has "[2K[1Aenv elicitkit: done" twice (a client reads only the last, and elicitkit does not choose for you): remove one of them`,
    );
  });

  /** `.cursor/mcp.json` a loop of symlinks through a name holding escape sequences; the folder. */
  const linkLoop = async () => {
    const folder = join(box.env.cwd, '.cursor');
    await mkdir(folder);
    const odd = `${CLIPBOARD}${HIDE}.json`;
    await symlink('mcp.json', join(folder, odd));
    await symlink(odd, join(folder, 'mcp.json'));
    return folder;
  };

  it("install: an error quoting a symlink's target is cleaned", async () => {
    const folder = await linkLoop();
    const r = await box.run(['cursor']);
    expect(r.code).toBe(1);
    inert([...r.out, ...r.err]);
    expect(r.err.join('\n')).toContain(`${join(folder, ']52;c;ZWNobyBoaQ==[2K[1A.json')}`);
  });

  it('uninstall --dry-run: its diff is cleaned too', async () => {
    await project('.vscode', `{\n  "servers": {\n    // ${CLIPBOARD}\n    "opsdesk": {"command": "x"}\n  }\n}\n`);
    const out: string[] = [];
    const err: string[] = [];
    const code = await uninstall(
      ['vscode', '--dry-run'],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      box.env,
    );
    expect(code, err.join('\n')).toBe(0);
    inert([...out, ...err]);
    expect(out).toContain('     // ]52;c;ZWNobyBoaQ==');
  });

  it("uninstall: an error quoting a symlink's target is cleaned", async () => {
    const folder = await linkLoop();
    const out: string[] = [];
    const err: string[] = [];
    const code = await uninstall(['cursor'], { out: (l) => out.push(l), err: (l) => err.push(l) }, box.env);
    expect(code).toBe(1);
    inert([...out, ...err]);
    expect(err.join('\n')).toContain(`${join(folder, ']52;c;ZWNobyBoaQ==[2K[1A.json')}`);
  });

  it('a CRLF config: the diff lines end without their CR (no blank line between them)', async () => {
    await project('.cursor', '{\r\n  "mcpServers": {\r\n    "a": {"command": "x"}\r\n  }\r\n}\r\n');
    const r = await box.run(['cursor', '--dry-run', '--', 'node', 'srv.js']);
    expect(r.code, r.err.join('\n')).toBe(0);
    inert(r.out);
    expect(r.out).toContain('+    "a": {"command": "x"},');
    expect(r.out).toContain('   "mcpServers": {');
  });
});
