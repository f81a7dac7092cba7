/**
 * How tests start the repository's TypeScript entries as processes (test/support/children.ts):
 * on this run's builds, `serve` alone from the CLI's, and never a silently slow start.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHILDREN, nodeArgs, SOURCE_NODE_ARGS } from './support/children.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('nodeArgs', () => {
  it('runs each entry of CHILDREN from a build of this run that exists', () => {
    for (const source of Object.values(CHILDREN)) {
      const [entry, ...rest] = nodeArgs(join(ROOT, source), 'serve', '--stdio');
      expect(entry).toMatch(/\.js$/);
      expect(existsSync(entry as string), entry).toBe(true);
      expect(rest).toEqual(['serve', '--stdio']);
    }
  });

  it("runs the CLI's other commands from the sources, as bin/elicitkit.js runs them from dist/", () => {
    const cli = join(ROOT, CHILDREN.cli);
    expect(nodeArgs(cli, 'call', 'deploy')).toEqual([...SOURCE_NODE_ARGS, cli, 'call', 'deploy']);
    expect(nodeArgs(cli)).toEqual([...SOURCE_NODE_ARGS, cli]);
  });

  it('refuses a file the run built nothing for, naming where to add it', () => {
    expect(() => nodeArgs(join(ROOT, 'apps/opsdesk/test/serve-crashing.ts'))).toThrow(
      'no build for apps/opsdesk/test/serve-crashing.ts: add it to CHILDREN in test/support/children.ts',
    );
  });

  it('points opsdesk’s shop processes at the built worker', () => {
    expect(process.env.ELICITKIT_SHOP_WORKER).toBe(nodeArgs(join(ROOT, CHILDREN['worker-main']))[0]);
  });
});
