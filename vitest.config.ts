import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of workspace packages, not their build output.
    conditions: ['@elicitkit/source'],
  },
  test: {
    // The processes tests start import the packages through their bundles: never stale ones. And
    // the TypeScript entries tests start as processes, each bundled once for the run.
    globalSetup: ['test/support/fresh-bundles.ts', 'test/support/child-bundles.ts'],
    setupFiles: ['test/support/child-env.ts'],
    include: [
      'packages/*/src/**/*.test.{ts,tsx}',
      'apps/*/src/**/*.test.{ts,tsx}',
      'apps/*/test/**/*.test.{ts,tsx}',
      'test/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**', 'apps/web/e2e/**'],
    // Two workers at least, even on two cores (vitest's default there is one): most of the suite
    // waits on child processes, sockets, Redis and PostgreSQL, and a second worker fills that time
    // (the whole suite on this 2-core machine: 948 s with one, 618 s with two). No test asserts a time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
