import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const SERVER = ['--', process.execPath, fileURLToPath(new URL('../test/bad-schema-server.mjs', import.meta.url))];

describe('a stdio server whose tool schemas are broken', () => {
  it('elicitkit tools warns for each broken tool, lists every tool, and exits 0', async () => {
    const r = await run(['tools', '--revision', '2025-11-25', ...SERVER]);
    expect(r.code, r.err).toBe(0);
    for (const name of ['fine', 'string_enum', 'string_property', 'object_enum', 'proto', 'last'])
      expect(r.out).toContain(`\n${name}\n`.replace(/^\n/, ''));
    expect(r.out).toContain('env?: dev|prod');
    // The SDK's own parsing of tools/list drops a `__proto__` property name; listing must survive it.
    expect(r.out).toMatch(/proto\n {2}__proto__ as a property name/);
    expect(r.err).toContain(
      'elicitkit: warning: tool "string_enum" of server "bad-schemas" has an input schema elicitkit cannot use: inputSchema.properties["env"].enum is the text "dev", not a list',
    );
    expect(r.err).toContain('tool "string_property" of server "bad-schemas"');
    expect(r.err).toContain('tool "object_enum" of server "bad-schemas"');
    expect(r.err).not.toContain('TypeError');
    expect(r.err.match(/warning:/g)).toHaveLength(3);
  }, 60_000);

  it('elicitkit call on a broken tool gives the clear error (exit 1) and calls nothing', async () => {
    const r = await run(['call', 'string_enum', 'env=dev', '--revision', '2025-11-25', ...SERVER]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^elicitkit: tool "string_enum" of server "bad-schemas" has an input schema/);
    expect(r.out).not.toContain('called');
  }, 60_000);

  it('elicitkit call on a well-formed tool of the same server still works', async () => {
    const r = await run(['call', 'fine', 'env=prod', '--revision', '2025-11-25', ...SERVER]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('called fine with {"env":"prod"}');
    const proto = await run(['call', 'proto', '--args', '{"__proto__":"x"}', '--revision', '2025-11-25', ...SERVER]);
    expect(proto.code, proto.err).toBe(0);
    expect(proto.out).toContain('called proto with'); // the SDK strips the key on its way; no crash either side
  }, 60_000);
});

const HOSTILE = ['--', process.execPath, fileURLToPath(new URL('../test/deep-schema-server.mjs', import.meta.url))];

// Was: the SDK checks the whole list; one tool it refuses, or one too deep for its check (a stack
// overflow), failed `tools` and every `call` on the server with "Maximum call stack size exceeded".
describe('a server listing a tool the SDK cannot take beside good ones', () => {
  for (const [what, server] of [
    ['one 1,000 levels deep and one that is not a tool', HOSTILE],
    ['one that is not a tool alone', [...HOSTILE, '--shallow']],
  ] as const)
    it(`${what}: tools lists the others and warns; call works on them and refuses it`, async () => {
      const listed = await run(['tools', '--revision', '2025-11-25', ...server]);
      expect(listed.code, listed.err).toBe(0);
      expect(listed.out).toContain('env?: dev|prod');
      expect(listed.out).toMatch(/^last$/m);
      expect(listed.out.includes('\ndeep\n')).toBe(!server.includes('--shallow'));
      expect(listed.err).toBe(
        'elicitkit: warning: tool "numbered" of server "deep-schemas" is not a tool as MCP defines one; it is left out',
      );
      const called = await run(['call', 'fine', 'env=prod', '--revision', '2025-11-25', ...server]);
      expect(called.code, called.err).toBe(0);
      expect(called.out).toContain('called fine with {"env":"prod"}');
      const refused = await run(['call', 'numbered', '--revision', '2025-11-25', ...server]);
      expect(refused.code).toBe(1);
      expect(refused.err).toBe(
        'elicitkit: tool "numbered" of server "deep-schemas" is not a tool as MCP defines one; it cannot be called',
      );
    }, 60_000);

  it('tools --json names the refused tool too: in the JSON (skipped) and on stderr', async () => {
    // Was: the JSON listed the others and said nothing of it, stderr empty.
    const r = await run(['tools', '--json', '--revision', '2025-11-25', ...HOSTILE]);
    expect(r.code, r.err).toBe(0);
    const listed = JSON.parse(r.out) as { tools: { name: string }[]; skipped: string[] };
    expect(listed.skipped).toEqual(['numbered']);
    expect(listed.tools.map((t) => t.name)).not.toContain('numbered');
    expect(listed.tools.map((t) => t.name)).toContain('fine');
    expect(r.err).toBe(
      'elicitkit: warning: tool "numbered" of server "deep-schemas" is not a tool as MCP defines one; it is left out',
    );
    const whole = await run(['tools', '--json', '--revision', '2025-11-25', ...SERVER]);
    expect(JSON.parse(whole.out).skipped).toEqual([]);
  }, 60_000);

  it('the deep tool itself is called with its arguments as JSON', async () => {
    const r = await run(['call', 'deep', '--args', '{"a":{"a":"x"}}', '--revision', '2025-11-25', ...HOSTILE]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('called deep with {"a":{"a":"x"}}');
  }, 60_000);
});
