/**
 * A server's output schema is not trusted code. The SDK client checks each tool result against
 * its tool's `outputSchema`, and with its default validator a `pattern` such as `^(a+)+$` met by
 * forty a's and a '!' kept `elicitkit call` (and `doctor`, which reads any server) on one
 * RegExp for hours, deaf to Ctrl+C. Both now check results with `SchemaValidator` (patterns in
 * linear time): the mismatch is reported at once. The real CLI, as a process, killed outright
 * (SIGKILL) if it stalls.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, nodeArgs } from '../../opsdesk/test/harness.js';

const run = promisify(execFile);
const SERVER = fileURLToPath(new URL('../test/hostile-pattern-server.mjs', import.meta.url));

/** The CLI as a process: its exit code and output; code -1 when it had to be killed. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
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

describe('a result against a hostile output-schema pattern', () => {
  it.each([
    ['report', 'must match pattern "^(a+)+$"'],
    ['labels', 'must NOT have additional properties'],
  ])(
    'call %s: refused as not matching its schema, at once (exit 1)',
    async (tool, said) => {
      const { code, err } = await cli(['call', tool, '--revision', '2025-11-25', '--', process.execPath, SERVER]);
      expect(code).toBe(1);
      expect(err).toContain("does not match the tool's output schema");
      expect(err).toContain(said);
    },
    70_000,
  );

  it('call fine: a result that meets its pattern is printed (exit 0)', async () => {
    const { code, out } = await cli(['call', 'fine', '--json', '--', process.execPath, SERVER]);
    expect(code).toBe(0);
    expect(JSON.parse(out).result.structuredContent).toEqual({ name: 'demo' });
  }, 70_000);

  it('doctor reads the server to the end: every tool called under every profile that can', async () => {
    const { code, out } = await cli(['doctor', '--yes', '--json', '--', process.execPath, SERVER]);
    expect(code).toBe(0);
    const report = JSON.parse(out) as { tools: { name: string; calls: { outcome: string }[] }[] };
    const outcomes = (name: string) =>
      new Set(
        report.tools
          .find((t) => t.name === name)
          ?.calls.map((c) => c.outcome)
          .filter((o) => o !== 'skipped'),
      );
    // A result refused by the client's check is the SDK's InvalidParams error (-32602), as for any mismatch.
    expect(outcomes('report')).toEqual(new Set(['error -32602']));
    expect(outcomes('labels')).toEqual(new Set(['error -32602']));
    expect(outcomes('fine')).not.toContain('error -32602');
  }, 70_000);
});
