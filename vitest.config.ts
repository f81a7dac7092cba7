import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of workspace packages, not their build output.
    conditions: ['@elicitkit/source'],
  },
  test: {
    // The processes tests start import the packages through their bundles: never stale ones.
    globalSetup: ['test/support/fresh-bundles.ts'],
    include: [
      'packages/*/src/**/*.test.{ts,tsx}',
      'apps/*/src/**/*.test.{ts,tsx}',
      'apps/*/test/**/*.test.{ts,tsx}',
      'test/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**', 'apps/web/e2e/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
