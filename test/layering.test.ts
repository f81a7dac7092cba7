/**
 * The layering of the repository (docs/ARCHITECTURE.md), enforced: which workspace a package's
 * own code may import, and that relative imports stay inside their package. Tests and test
 * helpers are free to reach across (they drive one layer from another); product code is not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Each workspace, the workspaces its product code may import, and whether it may use Node built-ins. */
const LAYERS = {
  'packages/form': { may: [], node: false },
  'packages/server': { may: ['form'], node: true },
  'packages/client': { may: ['form'], node: true },
  'packages/react': { may: ['form', 'client'], node: false },
  'apps/opsdesk': { may: ['form', 'server'], node: true },
  'apps/cli': { may: ['form', 'server', 'client', 'opsdesk'], node: true },
  'apps/web': { may: ['form', 'client', 'react', 'opsdesk'], node: true },
} as const satisfies Record<string, { may: readonly string[]; node: boolean }>;
type Workspace = keyof typeof LAYERS;

const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.next', 'test', 'e2e', 'test-results']);

/** What is wrong with one file's imports: one line per import that breaks the layering. */
function violations(workspace: Workspace, file: string, source: string): string[] {
  const layer = LAYERS[workspace];
  const found: string[] = [];
  for (const { fileName: specifier } of ts.preProcessFile(source, true, true).importedFiles) {
    const own = /^@elicitkit\/([a-z]+)/.exec(specifier)?.[1];
    if (
      own !== undefined &&
      !(layer.may as readonly string[]).includes(own) &&
      `@elicitkit/${own}` !== selfName(workspace)
    )
      found.push(`${file} imports ${specifier}: ${workspace} may import ${layer.may.join(', ') || 'no workspace'}`);
    if (!layer.node && specifier.startsWith('node:'))
      found.push(`${file} imports ${specifier}: ${workspace} has no Node built-ins`);
    if (specifier.startsWith('.')) {
      const target = relative(join(ROOT, workspace), resolve(join(ROOT, dirname(file)), specifier));
      if (target.startsWith(`..${sep}`) || target === '..')
        found.push(`${file} imports ${specifier}: out of ${workspace} (import the package instead)`);
    }
  }
  return found;
}

function selfName(workspace: Workspace): string {
  return `@elicitkit/${workspace.split('/')[1]}`;
}

/** The product source files of a workspace (no tests, no test helpers, no build output). */
function productFiles(workspace: Workspace): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(path);
      } else if (/\.tsx?$/.test(entry.name) && !/\.(test|suite)\.tsx?$|\.d\.ts$/.test(entry.name)) out.push(path);
    }
  };
  walk(workspace);
  return out;
}

describe('the layering: form → server / client → react → apps', () => {
  it.each(Object.keys(LAYERS) as Workspace[])('%s imports only what is below it', (workspace) => {
    const files = productFiles(workspace);
    expect(files.length).toBeGreaterThan(0);
    expect(files.flatMap((file) => violations(workspace, file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });

  it.each([
    ['packages/server', "import { attach } from '@elicitkit/client';", /may import form/],
    ['packages/client', "export { defineTool } from '@elicitkit/server';", /may import form/],
    ['packages/form', "import { readFileSync } from 'node:fs';", /no Node built-ins/],
    ['packages/form', "const m = await import('@elicitkit/react');", /may import no workspace/],
    ['packages/react', "import '@elicitkit/opsdesk';", /may import form, client/],
    ['apps/opsdesk', "import { execute } from '../../../packages/server/src/execute.js';", /out of apps\/opsdesk/],
  ] as const)('reports a break: %s with %s', (workspace, source, reason) => {
    const found = violations(workspace, `${workspace}/src/x.ts`, source);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(reason);
  });

  it('does not mistake an example in a comment for an import', () => {
    expect(
      violations('packages/server', 'packages/server/src/x.ts', "/** import { attach } from '@elicitkit/client'; */"),
    ).toEqual([]);
  });
});
