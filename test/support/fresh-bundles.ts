/**
 * Vitest global setup: rebundles a library package whose `dist/bundled/` is older than tsc's last
 * build of it (scripts/bundle-packages.ts). Tests import the TypeScript sources, but the processes
 * they start (the CLI from `dist/`, Bun, Deno) import the packages as a user does, through their
 * `exports`, which point at the bundles: after a bare `tsc -b` those would be stale.
 */
import { bundlePackages } from '../../scripts/bundle-packages.js';

export default async function setup(): Promise<void> {
  const rebuilt = await bundlePackages();
  if (rebuilt.length > 0) console.log(`rebundled after tsc: ${rebuilt.join('; ')}`);
}
