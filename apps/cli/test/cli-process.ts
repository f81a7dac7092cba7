import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CLI, nodeArgs } from '../../opsdesk/test/harness.js';

const run = promisify(execFile);

/**
 * Runs one `elicitkit` command line as its own process (the source CLI under this Node), for tests
 * that need what only a process shows: its exit code, what reached its real stdout and stderr, the
 * terminal filter. Code -1 when it had to be killed (a minute, then SIGKILL).
 *
 * @example
 * const { code, err } = await runCliProcess(['call', 'any', '--', process.execPath, server]);
 */
export async function runCliProcess(args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, nodeArgs(CLI, ...args), {
      timeout: 60_000,
      killSignal: 'SIGKILL',
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}

/**
 * `elicitkit doctor --yes --json` on a stdio server file, as a process: its exit code, and the
 * outcomes of each tool's calls across the profiles, those skipped left out.
 *
 * @example
 * const { code, outcomes } = await doctorOutcomes(SERVER);
 * expect(outcomes('report')).toEqual(new Set(['error -32602']));
 */
export async function doctorOutcomes(server: string): Promise<{ code: number; outcomes(tool: string): Set<string> }> {
  const { code, out } = await runCliProcess(['doctor', '--yes', '--json', '--', process.execPath, server]);
  const report = (code === 0 ? JSON.parse(out) : { tools: [] }) as {
    tools: { name: string; calls: { outcome: string }[] }[];
  };
  return {
    code,
    outcomes: (tool) =>
      new Set(
        report.tools
          .find((t) => t.name === tool)
          ?.calls.map((c) => c.outcome)
          .filter((o) => o !== 'skipped'),
      ),
  };
}
