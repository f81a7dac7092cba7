/**
 * A stdio server that stops (a missing module, a missing setting, a crash in a tool) said why on
 * its stderr, and `call` threw that away: all the person saw was "Connection closed". Its last
 * lines are kept (read as they come, so a server that logs never stalls) and shown, without
 * control sequences, when the connection ends in failure. The real CLI, as a process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliProcess as cli } from '../test/cli-process.js';

/** A server that logs a lot, then dies at start saying why (with an escape sequence in it). */
const DIES_AT_START = [
  "for (let i = 0; i < 2000; i++) console.error('starting, step ' + i + ' ' + 'x'.repeat(60));",
  "console.error('fatal: DATABASE_URL is not set \\x1b[2J');",
  // Not process.exit(), which may cut its own stderr short in a pipe.
  'process.exitCode = 1;',
].join('\n');

const dir = mkdtempSync(join(tmpdir(), 'ek-server-stderr-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// In a file: a script given with -e would be quoted whole in the target's name.
const diesAtStart = join(dir, 'dies-at-start.mjs');
writeFileSync(diesAtStart, DIES_AT_START);

describe('a stdio server that stops', () => {
  it.each(['auto', '2025-11-25'])(
    'at start (%s): the failure quotes its last words on stderr, cleaned',
    async (revision) => {
      const { code, err } = await cli(['call', 'any', '--revision', revision, '--', process.execPath, diesAtStart]);
      expect(code).toBe(1);
      expect(err).toContain('fatal: DATABASE_URL is not set');
      expect(err).not.toContain('\x1b');
      // The tail, not the whole log.
      expect(err).not.toContain('step 0 ');
    },
  );
});

describe('a stdio server that stops at start, under doctor', () => {
  it('the failure to connect quotes its last words on stderr, cleaned, under every profile', async () => {
    const { code, err } = await cli(['doctor', '--yes', '--json', '--', process.execPath, diesAtStart]);
    expect(code).toBe(1);
    expect(err).toContain('elicitkit doctor: could not connect to');
    expect(err).toContain('fatal: DATABASE_URL is not set');
    expect(err).not.toContain('\x1b');
    expect(err).not.toContain('step 0 ');
  });
});

const DIES_MID_CALL = fileURLToPath(new URL('../test/dies-mid-call-server.mjs', import.meta.url));
const NO_TOOLS = fileURLToPath(new URL('../test/no-tools-server.mjs', import.meta.url));

describe('a stdio server that stops during the call', () => {
  it('says so, quoting its last words on stderr, cleaned', async () => {
    const { code, err } = await cli([
      'call',
      'work',
      '--revision',
      '2025-11-25',
      '--',
      process.execPath,
      DIES_MID_CALL,
    ]);
    expect(code).toBe(1);
    expect(err).toContain('the server stopped during the call');
    expect(err).toContain('fatal: out of disk space while writing /var/lib/x');
    expect(err).not.toContain('\x1b');
  });
});

describe('a process the server leaves behind holding its stderr', () => {
  it('does not hide that the server stopped: the connect fails at once, quoting it', async () => {
    const pidFile = join(dir, 'left-behind-at-start.pid');
    const server = `sleep 600 >/dev/null </dev/null & echo $! > '${pidFile}'; printf 'fatal: no \\143onfig\\n' >&2; exit 1`;
    try {
      const { code, err } = await cli(['call', 'any', '--revision', '2025-11-25', '--', 'sh', '-c', server]);
      expect(code).toBe(1);
      // Not "no answer within 30 s": the server's end was seen as it came.
      expect(err).toContain('Connection closed');
      expect(err).toContain('fatal: no config');
    } finally {
      for (const pid of readFileSync(pidFile, 'utf8').split('\n').filter(Boolean)) process.kill(Number(pid));
    }
  }, 90_000);

  it('does not keep the CLI running after the command is done', async () => {
    const pidFile = join(dir, 'left-behind.pid');
    // `sleep` keeps the server's stderr open, and nothing else of it.
    const server = `sleep 600 >/dev/null </dev/null & echo $! > '${pidFile}'; exec '${process.execPath}' '${NO_TOOLS}'`;
    try {
      // The CLI's own run is far shorter than execFile's 60 s timeout, which kills it (code -1).
      const { code } = await cli(['tools', '--revision', '2025-11-25', '--', 'sh', '-c', server]);
      expect(code).toBe(0);
    } finally {
      for (const pid of readFileSync(pidFile, 'utf8').split('\n').filter(Boolean)) process.kill(Number(pid));
    }
  }, 90_000);
});
