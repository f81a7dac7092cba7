/**
 * The one-file build of `elicitkit serve`: the CLI and everything it imports (the SDK and zod
 * included, better-sqlite3's JavaScript too) bundled by esbuild into `apps/cli/dist/bundle/`, with opsdesk's shop worker and the client's schema-check thread beside it.
 * Cold start was mostly Node resolving, reading and compiling ~240 separate module files; one file
 * (plus a chunk per lazily loaded command) removes that. `npm run build` (and so `npm install`)
 * makes it from `dist/`; `apps/cli/bin/elicitkit.js` uses it (through `apps/cli/src/current-build.ts`) only while it is current.
 *
 *   node --import tsx scripts/bundle-serve.ts
 */
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where `npm run build` puts it; `apps/cli/bin/elicitkit.js` looks here. */
export const SERVE_BUNDLE_DIR = join(ROOT, 'apps/cli/dist/bundle');

const ENTRIES = {
  dist: {
    cli: 'apps/cli/dist/cli.js',
    'worker-main': 'apps/opsdesk/dist/shop/worker-main.js',
    'schema-worker': 'packages/client/dist/schema-worker.js',
  },
  // Tests bundle the sources directly, so they do not depend on a prior `tsc -b`.
  source: {
    cli: 'apps/cli/src/cli.ts',
    'worker-main': 'apps/opsdesk/src/shop/worker-main.ts',
    'schema-worker': 'packages/client/src/schema-worker.ts',
  },
} as const;

/** better-sqlite3's `require('bindings')` → the stand-in that tells it where the addon is. */
const betterSqlite3Bindings: Plugin = {
  name: 'better-sqlite3-bindings',
  setup(b) {
    b.onResolve({ filter: /^bindings$/ }, (args) =>
      /[\\/]better-sqlite3[\\/]/.test(args.importer)
        ? { path: join(ROOT, 'scripts/better-sqlite3-bindings.cjs') }
        : undefined,
    );
  },
};

/** What the stamp records: each tsbuildinfo the bundle's inputs came from, with its mtime then. */
export interface BundleStamp {
  entry: string;
  buildInfo: Record<string, number>;
}

/**
 * Bundles the CLI into `outdir` (emptied first). From `dist`, it also writes `stamp.json`: the
 * tsbuildinfo files of the workspaces it read, so a later `tsc -b` that rewrites any of them
 * makes this build stale (and `serve` falls back to `dist/`).
 *
 * @example
 * await bundleServe({ from: 'dist', outdir: SERVE_BUNDLE_DIR }); // → { entry: '…/cli.js', inputs: 240 }
 */
export async function bundleServe(options: {
  from: keyof typeof ENTRIES;
  outdir: string;
  /** More entries built alongside, from the sources (name → file under the repository): the test setup's child processes. */
  more?: Record<string, string>;
}): Promise<{ entry: string; inputs: number }> {
  rmSync(options.outdir, { recursive: true, force: true });
  const entries = { ...ENTRIES[options.from], ...options.more };
  const entryPoints = Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, join(ROOT, v)]));
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints,
    outdir: options.outdir,
    bundle: true,
    splitting: true, // each command stays its own chunk, loaded only when chosen
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Redis only replicas of --http load, Postgres only --database. better-sqlite3's addon is found at run time (plugin).
    external: ['ioredis', 'pg'],
    plugins: [betterSqlite3Bindings],
    ...(options.from === 'source' ? { conditions: ['@elicitkit/source'] } : {}),
    // CommonJS dependencies bundled into ESM still call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as __ekRequire } from 'node:module'; const require = __ekRequire(import.meta.url);",
    },
    // Stack traces point at the TypeScript sources under NODE_OPTIONS=--enable-source-maps; without
    // that flag Node never reads the map, so the start costs nothing more.
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const entry = join(options.outdir, 'cli.js');
  if (options.from === 'dist') {
    const buildInfo: Record<string, number> = {};
    for (const input of inputs) {
      const workspace = /^((?:apps|packages)\/[^/]+)\/dist\//.exec(input)?.[1];
      if (!workspace) continue;
      const file = join(ROOT, workspace, 'tsconfig.tsbuildinfo');
      buildInfo[relative(options.outdir, file).split(sep).join('/')] = statSync(file).mtimeMs;
    }
    const stamp: BundleStamp = { entry: 'cli.js', buildInfo };
    writeFileSync(join(options.outdir, 'stamp.json'), `${JSON.stringify(stamp, null, 2)}\n`);
  }
  return { entry, inputs: inputs.length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { inputs } = await bundleServe({ from: 'dist', outdir: SERVE_BUNDLE_DIR });
  console.log(`serve bundle: ${inputs} modules → ${relative(ROOT, SERVE_BUNDLE_DIR)}`);
}
