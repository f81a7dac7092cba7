/**
 * A server's output schema is not trusted code. The SDK client checks each tool result against
 * its tool's `outputSchema`, and with its default validator a `pattern` such as `^(a+)+$` met by
 * forty a's and a '!' kept `elicitkit call` (and `doctor`, which reads any server) on one
 * RegExp for hours, deaf to Ctrl+C. Both now check results with `SchemaValidator` (patterns in
 * linear time): the mismatch is reported at once. The real CLI, as a process, killed outright
 * (SIGKILL) if it stalls.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliProcess as cli, doctorOutcomes } from '../test/cli-process.js';

const SERVER = fileURLToPath(new URL('../test/hostile-pattern-server.mjs', import.meta.url));

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
    const { code, outcomes } = await doctorOutcomes(SERVER);
    expect(code).toBe(0);
    // A result refused by the client's check is the SDK's InvalidParams error (-32602), as for any mismatch.
    expect(outcomes('report')).toEqual(new Set(['error -32602']));
    expect(outcomes('labels')).toEqual(new Set(['error -32602']));
    expect(outcomes('fine')).not.toContain('error -32602');
  }, 70_000);
});
