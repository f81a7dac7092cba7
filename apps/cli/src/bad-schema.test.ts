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
