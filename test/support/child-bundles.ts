/**
 * Vitest global setup: the TypeScript entries that tests start as child processes (`CHILDREN`),
 * bundled once per run from the current sources into one folder, so each start is plain Node on
 * one file instead of tsx compiling some hundred modules again. Measured on the whole suite: a
 * start under tsx cost 0.9–1.8 CPU-seconds (the shop worker, the fixture server, `serve`), about
 * a third of the suite's CPU, on a run that is CPU-bound on two cores. Tests find the builds
 * through `nodeArgs` (test/support/children.ts); the folder is removed after the run.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { bundleServe } from '../../scripts/bundle-serve.js';
import { CHILDREN } from './children.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export default async function setup(project: TestProject): Promise<() => void> {
  // Inside the repository, so the bundles resolve what stays outside them (the addon of
  // better-sqlite3, ioredis, pg) from its node_modules, as the shipped one-file build does.
  const cache = join(ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'ek-test-children-'));
  const more = Object.fromEntries(
    Object.entries(CHILDREN).filter(([name]) => !['cli', 'worker-main', 'schema-worker'].includes(name)),
  );
  await bundleServe({ from: 'source', outdir: dir, more });
  project.provide(
    'childBundles',
    Object.fromEntries(Object.entries(CHILDREN).map(([name, source]) => [source, join(dir, `${name}.js`)])),
  );
  return () => rmSync(dir, { recursive: true, force: true });
}
