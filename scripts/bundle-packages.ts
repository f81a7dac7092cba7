/**
 * The published JavaScript of each library package: its entries (every subpath in `exports`)
 * bundled by esbuild from tsc's `dist/` into `dist/bundled/`, one file per entry plus the chunks
 * they share. A user's server that imports `@elicitkit/server` and `@elicitkit/form` otherwise
 * makes Node resolve, read and compile some 80 module files of ours before its first answer;
 * bundled, it reads a handful. Only our own modules are bundled: every bare import (the SDK, zod,
 * another Elicitkit package, Node's built-ins) stays an import, so nothing is copied and packages
 * share one instance of each dependency. tsc's output and declarations are left as they are; the
 * `exports` point `default` here and `types` there.
 *
 * `npm run build` runs it after `tsc -b`; the test setup (`test/support/fresh-bundles.ts`) runs it
 * when tsc has rewritten a package since, so nothing ever runs a stale bundle.
 *
 *   node --import tsx scripts/bundle-packages.ts
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const LIBRARY_PACKAGES = ['form', 'client', 'server', 'react'] as const;
const SOURCE = '@elicitkit/source';

interface ExportEntry {
  [SOURCE]?: string;
  types?: string;
  default?: string;
}

/**
 * The bundle entries of a package, from its `exports`: `{ 'index': 'dist/index.js', … }`, each
 * `default` it must point at (`./dist/bundled/index.js`) beside it. Subpaths without a TypeScript
 * source (a stylesheet) are not JavaScript entries.
 */
export function bundleEntries(pkgDir: string): { name: string; from: string; target: string; subpath: string }[] {
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    exports: Record<string, ExportEntry>;
  };
  const entries: { name: string; from: string; target: string; subpath: string }[] = [];
  for (const [subpath, entry] of Object.entries(pkg.exports)) {
    const source = entry[SOURCE];
    if (!source?.endsWith('.ts')) continue;
    const name = posix.relative('./src', source).replace(/\.tsx?$/, '');
    entries.push({ name, from: `dist/${name}.js`, target: `./dist/bundled/${name}.js`, subpath });
  }
  return entries;
}

/**
 * Entries a package loads by file rather than by name (worker threads), bundled beside its
 * exports' entries under the same name as tsc's: `new URL('./<name>.js', import.meta.url)` from
 * the bundle finds it there (`<name>.mjs`). Each is one ES module file sharing no chunk: a bundler
 * that meets that `new URL` (Next.js's) copies the file alone into its own output, where a chunk
 * beside it would be missing and a `.js` file read as CommonJS — the thread could not load, and
 * the web app's checks ran without it.
 */
export const WORKER_ENTRIES: Record<string, string[]> = { client: ['schema-worker'] };

/** Every bare specifier stays an import: our own relative modules are all that is bundled. */
const externalBare: Plugin = {
  name: 'external-bare',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
  },
};

const STAMP = 'stamp.json';

/** The time tsc last wrote this package (its tsbuildinfo), or undefined if it never has. */
function builtAt(pkgDir: string): number | undefined {
  const info = join(pkgDir, 'tsconfig.tsbuildinfo');
  return existsSync(info) ? statSync(info).mtimeMs : undefined;
}

/** True when the package's bundle is missing or older than tsc's last build of it. */
export function isStale(pkgDir: string): boolean {
  const built = builtAt(pkgDir);
  if (built === undefined) return false; // nothing to bundle from
  const stamp = join(pkgDir, 'dist/bundled', STAMP);
  if (!existsSync(stamp)) return true;
  return (JSON.parse(readFileSync(stamp, 'utf8')) as { builtAt: number }).builtAt !== built;
}

export interface Bundled {
  entries: number;
  /** The module files bundled, relative to the package. */
  inputs: string[];
  /** Every import the bundle leaves to Node: `{ chunk or entry file: [specifier, …] }`. */
  imports: Record<string, string[]>;
}

/** Bundles one package's entries into its `dist/bundled/` (or `outdir`, emptied first) and stamps it. */
export async function bundlePackage(pkgDir: string, outdir = join(pkgDir, 'dist/bundled')): Promise<Bundled> {
  const built = builtAt(pkgDir);
  if (built === undefined) throw new Error(`${pkgDir} has not been built by tsc: run tsc -b first`);
  rmSync(outdir, { recursive: true, force: true });
  const entries = bundleEntries(pkgDir);
  const workers = WORKER_ENTRIES[basename(pkgDir)] ?? [];
  const common = {
    absWorkingDir: pkgDir,
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'neutral', // every import is external, so nothing platform-specific is resolved here
    target: 'esnext', // tsc has already compiled for its target: print the code as it is
    plugins: [externalBare],
    // Chained through tsc's own maps to the TypeScript sources (read only under --enable-source-maps).
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
  } satisfies BuildOptions;
  const result = await build({
    ...common,
    entryPoints: Object.fromEntries(entries.map((e) => [e.name, join(pkgDir, e.from)])),
    splitting: true, // what two entries share is one chunk: one instance of each module
  });
  // A thread's file is its own, whole: it shares no instance with the entries anyway.
  const threads = await Promise.all(
    workers.map((name) =>
      build({
        ...common,
        entryPoints: { [name]: join(pkgDir, `dist/${name}.js`) },
        splitting: false,
        // ESM wherever it is copied: under a folder whose package.json says nothing (Next.js's
        // `.next/server/assets`), a `.js` file is read as CommonJS and its first import fails.
        outExtension: { '.js': '.mjs' },
      }),
    ),
  );
  writeFileSync(join(outdir, STAMP), `${JSON.stringify({ builtAt: built })}\n`);
  const imports: Record<string, string[]> = {};
  // The metafile's paths are relative to the package; chunks are named relative to `outdir`.
  const inOut = (path: string) => relative(outdir, resolve(pkgDir, path)).split(sep).join('/');
  const outputs = [result, ...threads].flatMap((r) => Object.entries(r.metafile.outputs));
  for (const [file, output] of outputs) {
    if (file.endsWith('.map')) continue;
    imports[inOut(file)] = [...new Set(output.imports.map((i) => (i.external ? i.path : `./${inOut(i.path)}`)))];
  }
  const inputs = new Set([result, ...threads].flatMap((r) => Object.keys(r.metafile.inputs)));
  return { entries: entries.length, inputs: [...inputs], imports };
}

/** Bundles every library package whose bundle is stale (or all of them, with `force`). */
export async function bundlePackages(options: { force?: boolean } = {}): Promise<string[]> {
  const done: string[] = [];
  for (const name of LIBRARY_PACKAGES) {
    const dir = join(ROOT, 'packages', name);
    if (!options.force && !isStale(dir)) continue;
    const { entries, inputs } = await bundlePackage(dir);
    done.push(`@elicitkit/${name}: ${entries} entries from ${inputs.length} modules`);
  }
  return done;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const line of await bundlePackages({ force: true })) console.log(line);
}
