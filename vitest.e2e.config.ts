import { defineConfig } from 'vitest/config';

/** Browser tests: the built web app in Debian's Chromium (`npm run test:e2e`). */
export default defineConfig({
  resolve: { conditions: ['@elicitkit/source'] },
  test: {
    globalSetup: ['test/support/fresh-bundles.ts'],
    include: ['apps/web/e2e/**/*.e2e.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
