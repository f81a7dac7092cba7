// What the SDK logs through `console` on its own — its warning about a tool it drops quotes the
// tool's name, which the server chose — as the CLI prints it on a terminal: its own process.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgs } from '../../../test/support/children.js';
import { badHeaderServer, host } from '../test/broken-servers.js';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
/** What would drive a terminal: C0 controls but the line break, DEL and C1, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const DRIVES_TERMINAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** A window title, a screen clear, a colour and a bidi override in a tool's name. */
const NAME = 'x\u001b]0;PWNED-TITLE\u0007\u001b[2J\u001b[31mRED-FROM-SERVER\u001b[0m\u202eevil';

let server: { url: string; close(): Promise<void> };
beforeAll(async () => {
  server = await host(() => badHeaderServer(NAME));
});
afterAll(async () => {
  await server.close();
});

/** The CLI as a person runs it, from the sources: its exit code and what it printed. */
function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, nodeArgs(CLI, ...args), { timeout: 60_000 }, (error, out, err) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, out, err });
    });
  });
}

describe("the SDK's console warnings, in every command", () => {
  // Was: cli.ts sent `console` to stderr as it came, so the warning carried the name's escape
  // sequences to the terminal: a new window title, a cleared screen.
  it.each([
    ['tools', () => ['tools', server.url, '--revision', '2026-07-28']],
    [
      'doctor',
      () => ['doctor', server.url, '--yes', '--revision', '2026-07-28', '--budget', '0', '--timeout-ms', '5000'],
    ],
  ])(
    '%s prints them without control sequences',
    async (_command, args) => {
      const r = await cli(args());
      expect(r.err).toContain(
        "[mcp-sdk] excluding tool 'x]0;PWNED-TITLE[2J[31mRED-FROM-SERVER[0mevil' from tools/list",
      );
      expect(r.err).not.toMatch(DRIVES_TERMINAL);
      expect(r.out).not.toMatch(DRIVES_TERMINAL);
    },
    90_000,
  );
});
