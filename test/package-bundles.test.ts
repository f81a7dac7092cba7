/**
 * The libraries' published JavaScript (scripts/bundle-packages.ts): each package's own modules
 * bundled, every dependency left an import, the `exports` pointing at the bundles, and the entry a
 * server imports doing no work it does not need at start.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Bundled,
  bundleEntries,
  bundlePackage,
  isStale,
  LIBRARY_PACKAGES,
  WORKER_ENTRIES,
} from '../scripts/bundle-packages.js';

const root = join(import.meta.dirname, '..');
const out = mkdtempSync(join(tmpdir(), 'elicitkit-bundles-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** `@scope/name/sub` → `@scope/name`; `zod/v4` → `zod`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

describe.each(LIBRARY_PACKAGES)('@elicitkit/%s', (name) => {
  const dir = join(root, 'packages', name);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    exports: Record<string, { default?: string }>;
  };
  let bundled: Bundled;
  const bundle = async () => {
    bundled ??= await bundlePackage(dir, join(out, name));
    return bundled;
  };

  it('bundles only its own compiled modules', async () => {
    const { inputs } = await bundle();
    expect(inputs.length).toBeGreaterThan(0);
    expect(inputs.filter((i) => !i.startsWith('dist/') || i.includes('node_modules'))).toEqual([]);
  });

  it('leaves every dependency an import, each one it declares', async () => {
    const allowed = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    const builtins = new Set(builtinModules);
    for (const [file, imports] of Object.entries((await bundle()).imports)) {
      const undeclared = imports.filter(
        (i) =>
          !i.startsWith('./') && !(i.startsWith('node:') && builtins.has(i.slice(5))) && !allowed.has(packageOf(i)),
      );
      expect(undeclared, file).toEqual([]);
    }
  });

  // A bundler meeting `new URL('./schema-worker.mjs', import.meta.url)` (Next.js's) copies that
  // file alone: a chunk it imported would be left behind (and a `.js` read as CommonJS there).
  it("makes each thread's file a whole ES module: it imports nothing of the package's", async () => {
    const { imports } = await bundle();
    for (const worker of WORKER_ENTRIES[name] ?? []) {
      expect(imports[`${worker}.mjs`], worker).toBeDefined();
      expect(
        imports[`${worker}.mjs`]?.filter((i) => i.startsWith('./')),
        worker,
      ).toEqual([]);
    }
  });

  it('points each export at its bundle, and the bundle in the tree is current', () => {
    for (const entry of bundleEntries(dir)) expect(manifest.exports[entry.subpath]?.default).toBe(entry.target);
    expect(isStale(dir)).toBe(false);
  });
});

it("@elicitkit/server's entry loads no node:crypto at import: it is taken on first use", async () => {
  const { imports } = await bundlePackage(join(root, 'packages/server'), join(out, 'server-entry'));
  const reached = new Set<string>();
  const walk = (file: string) => {
    for (const i of imports[file] ?? []) {
      if (i.startsWith('./')) {
        const chunk = i.slice(2);
        if (!reached.has(chunk)) {
          reached.add(chunk);
          walk(chunk);
        }
      } else reached.add(i);
    }
  };
  walk('index.js');
  expect([...reached].filter((i) => i.startsWith('node:'))).toEqual(['node:buffer']);
});
