import { main } from '../src/main.js';

/**
 * Runs one `elicitkit` command line in-process, as the shell would, and collects what it printed.
 *
 * @example
 * const { code, out } = await runCli(['tools', 'opsdesk']);
 */
export async function runCli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
