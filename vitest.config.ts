import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

const INCLUDE = [
  'packages/*/src/**/*.test.{ts,tsx}',
  'apps/*/src/**/*.test.{ts,tsx}',
  'apps/*/test/**/*.test.{ts,tsx}',
  'test/**/*.test.ts',
];
const EXCLUDE = ['**/node_modules/**', '**/dist/**', 'apps/web/e2e/**'];

/**
 * What a test file does that outlasts it in its process, where Vitest does not put it back: mocks a
 * module (the module stays mocked, or stays real, for the files after it), stubs an environment
 * variable or a global, writes `process.env`, changes the working directory.
 */
export const PROCESS_WIDE =
  /\bvi\.(?:mock|doMock|stubEnv|stubGlobal)\(|\bprocess\.chdir\(|\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*=(?!=)|\bdelete process\.env\b/;

/**
 * The test files that run each in a process of its own: the web app's (it reads its configuration
 * into module state, once, as a Next.js server does at start), and every file `PROCESS_WIDE` finds.
 * Read from the files each run, so a new test that stubs an environment variable is isolated
 * without anyone listing it.
 */
function filesNeedingAProcess(): string[] {
  const found: string[] = [];
  for (const top of ['packages', 'apps', 'test']) {
    for (const entry of readdirSync(join(ROOT, top), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.test\.tsx?$/.test(entry.name)) continue;
      const path = relative(ROOT, join(entry.parentPath, entry.name)).replaceAll('\\', '/');
      if (/(?:^|\/)(?:node_modules|dist)\//.test(path)) continue;
      if (path.startsWith('apps/web/') || PROCESS_WIDE.test(readFileSync(join(ROOT, path), 'utf8'))) found.push(path);
    }
  }
  return found;
}
const OWN_PROCESS = filesNeedingAProcess();

/** What both projects take: the root's global setup runs once for the run, not once per project. */
const PROJECT = {
  // Tests run against the TypeScript sources of workspace packages, not their build output.
  resolve: { conditions: ['@elicitkit/source'] },
  test: { setupFiles: ['test/support/child-env.ts'], testTimeout: 30_000, hookTimeout: 60_000 },
};

export default defineConfig({
  test: {
    // The processes tests start import the packages through their bundles: never stale ones. And
    // the TypeScript entries tests start as processes, each bundled once for the run.
    globalSetup: ['test/support/fresh-bundles.ts', 'test/support/child-bundles.ts'],
    // Two workers at least, even on two cores (vitest's default there is one): most of the suite
    // waits on child processes, sockets, Redis and PostgreSQL, and a second worker fills that time
    // (the whole suite on this 2-core machine: 948 s with one, 618 s with two). No test asserts a time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      // Most files share their worker's process with the files before them: a fresh process per file
      // cost ~1.6 CPU-seconds each in importing the SDK and our modules again (whole suite on two
      // cores: 1,292 CPU-s and 796 s with a process per file; 990 CPU-s and 642 s as two projects).
      {
        ...PROJECT,
        test: {
          ...PROJECT.test,
          name: 'shared',
          include: INCLUDE,
          exclude: [...EXCLUDE, ...OWN_PROCESS],
          isolate: false,
        },
      },
      { ...PROJECT, test: { ...PROJECT.test, name: 'own-process', include: OWN_PROCESS } },
    ],
  },
});
