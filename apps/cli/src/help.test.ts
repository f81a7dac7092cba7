import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';
import { COMMAND_USAGE, COMMANDS } from './help.js';
import { USAGE } from './usage.js';

describe('help for every command', () => {
  it.each(
    COMMANDS.flatMap((c) => [
      [c, '--help'],
      [c, '-h'],
      ['help', c],
    ]),
  )('elicitkit %s %s prints that command’s usage and exits 0', async (...argv) => {
    const command = argv[0] === 'help' ? argv[1] : argv[0];
    const { code, out, err } = await run(argv);
    expect([code, err]).toEqual([0, '']);
    expect(out).toBe(COMMAND_USAGE[command as keyof typeof COMMAND_USAGE]);
    expect(out).toMatch(new RegExp(`^Usage: elicitkit ${command} `));
  });

  it('wins over everything else on the line, even what would be a usage error', async () => {
    expect((await run(['install', 'no-such-client', '--help'])).code).toBe(0);
    expect((await run(['doctor', '--era', 'future', '-h'])).code).toBe(0);
    expect((await run(['call', '--help', 'opsdesk'])).out).toBe(COMMAND_USAGE.call);
  });

  it('after --, --help belongs to the server command, not to elicitkit', async () => {
    const { code, err } = await run(['tools', 'opsdesk', '--', 'node', 'x.js', '--help']);
    expect(code).toBe(2);
    expect(err).toMatch(/either a target \(opsdesk\) or a command after --/);
  });

  it('elicitkit help, --help and -h print the overview (exit 0); no command at all is a usage error', async () => {
    for (const argv of [['help'], ['--help'], ['-h']]) {
      const { code, out } = await run(argv);
      expect(code).toBe(0);
      expect(out).toMatch(/^Usage: elicitkit <command>/);
      expect(out).toMatch(/elicitkit <command> --help/);
    }
    expect((await run([])).code).toBe(2);
  });

  it.each([
    [['call', '--frobnicate'], 'elicitkit call: unknown option --frobnicate', 'call'],
    [['doctor', '--fixtures'], 'elicitkit doctor: --fixtures needs a value', 'doctor'],
    [['tools', '--json=yes'], 'elicitkit tools: --json takes no value', 'tools'],
    [['audit', '--limit', 'x'], 'elicitkit audit: ', 'audit'],
    [['install', 'cursor', '--force'], 'elicitkit install: unknown option --force', 'install'],
  ])(
    'a usage error of %j is two lines: what was wrong, and where its options are (not the whole manual)',
    async (argv, first, command) => {
      const { code, out, err } = await run(argv);
      expect(code).toBe(2);
      expect(out).toBe('');
      const lines = err.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain(first);
      expect(lines[0]).not.toMatch(/To specify a positional argument/);
      expect(lines[1]).toBe(`Run \`elicitkit ${command} --help\` for its options.`);
    },
  );

  it('an unknown command is two lines too: the command, and the commands there are', async () => {
    const { code, err } = await run(['frobnicate']);
    expect(code).toBe(2);
    expect(err.trimEnd().split('\n')).toEqual([
      'elicitkit: unknown command "frobnicate"',
      'Commands: serve, reset, tools, call, doctor, install, uninstall, audit. Run `elicitkit --help` for more.',
    ]);
  });

  it('help for something that is not a command is a usage error', async () => {
    const { code, err } = await run(['help', 'deploy']);
    expect(code).toBe(2);
    expect(err).toMatch(/no command "deploy" to help with/);
    expect((await run(['help', 'call', 'tools'])).err).toMatch(/help takes one command/);
  });

  it('every option a command parses is in its usage', () => {
    for (const [command, paths] of Object.entries(PARSED_IN)) {
      const options = parsedOptions(paths);
      expect(options.length, command).toBeGreaterThan(1);
      for (const option of options) {
        expect(COMMAND_USAGE[command as keyof typeof COMMAND_USAGE], `${command} --${option}`).toContain(`--${option}`);
        // And in the summary `elicitkit --help` prints, under the command's own lines.
        // (`--era`, deprecated, is told once for all commands below them.)
        if (option !== 'help' && option !== 'era')
          expect(summaryOf(command), `elicitkit --help: ${command} --${option}`).toContain(`--${option}`);
      }
    }
  });

  it('every option a usage names is one its command parses', () => {
    // Was: the summary offered `doctor … [--data DIR]`, which doctor refused as an unknown option.
    for (const [command, paths] of Object.entries(PARSED_IN)) {
      const parsed = new Set([...parsedOptions(paths), 'help']);
      const usage = `${summaryOf(command)}\n${COMMAND_USAGE[command as keyof typeof COMMAND_USAGE]}`;
      const named = new Set([...usage.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1] as string));
      expect(named.size, command).toBeGreaterThan(1);
      for (const option of named) expect(parsed.has(option), `${command} names --${option}`).toBe(true);
    }
  });
});

/** Where each command's parseArgs options are written down. */
const PARSED_IN: Record<string, string[]> = {
  serve: ['commands/serve.ts'],
  reset: ['commands/reset.ts'],
  tools: ['options.ts'],
  call: ['options.ts', 'commands/call.ts'],
  doctor: ['commands/doctor.ts'],
  install: ['install/parse-args.ts'],
  audit: ['commands/audit.ts'],
};

/** The options the parseArgs calls in `paths` take. */
function parsedOptions(paths: string[]): string[] {
  const source = paths.map((p) => readFileSync(fileURLToPath(new URL(p, import.meta.url)), 'utf8')).join('\n');
  return [...source.matchAll(/'?([a-z][a-z-]*)'?: \{ type: '(?:string|boolean)'/g)].map((m) => m[1] as string);
}

/** The lines of `USAGE` (`elicitkit --help`) that belong to `command`: its line and those indented under it. */
function summaryOf(command: string): string {
  const lines = USAGE.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`  ${command} `));
  if (start < 0) return '';
  // Up to the next command's line, or the end of the list (the notes under it are no command's).
  const end = lines.findIndex((l, i) => i > start && (/^ {2}[a-z]/.test(l) || !l.startsWith(' ')));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}
