import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** What `npm start` builds from: the libraries, the apps the web app runs, the lockfile. */
export const SOURCE_DIRS = ['packages', 'apps'] as const;
const ROOT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json'];
/** Folders that are output, data or tests: they never change what `next build` produces. */
const SKIP_DIRS = new Set([
  'node_modules',
  'dist',
  '.next',
  'test-results',
  '.elicitkit',
  'e2e',
  'test',
  'golden',
  'fixtures',
]);
const SKIP_FILE = /\.(test\.tsx?|tsbuildinfo|md|png)$|^next-env\.d\.ts$/;

/** Where the fingerprint of the last successful build is kept: inside `.next`, so deleting the build forgets it. */
export function stampPath(webDir: string): string {
  return join(webDir, '.next', 'elicitkit-build-stamp');
}

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(join(dir, entry.name), out);
    } else if (entry.isFile() && !SKIP_FILE.test(entry.name)) {
      out.push(join(dir, entry.name));
    }
  }
}

/**
 * A hash of every source file's path and content (not its mtime: a checkout or a copy changes
 * mtimes without changing what would be built).
 *
 * @example
 * const now = sourceFingerprint('/repo');
 */
export function sourceFingerprint(root: string): string {
  const files: string[] = [];
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) walk(join(root, dir), files);
  for (const file of ROOT_FILES) if (existsSync(join(root, file))) files.push(join(root, file));
  const hash = createHash('sha256');
  for (const file of files.map((f) => relative(root, f).split(sep).join('/')).sort()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

/** Why a build is needed, or `undefined` when the last build is current. */
export type BuildReason = 'no-build' | 'no-stamp' | 'sources-changed' | 'forced';

/**
 * The decision alone: build unless a finished build exists whose stamp equals the sources' fingerprint.
 *
 * @example
 * buildReason({ fingerprint: 'a', stamp: 'a', built: true, force: false }); // undefined
 */
export function buildReason(state: {
  fingerprint: string;
  stamp: string | undefined;
  built: boolean;
  force: boolean;
}): BuildReason | undefined {
  if (state.force) return 'forced';
  if (!state.built) return 'no-build';
  if (state.stamp === undefined) return 'no-stamp';
  return state.stamp === state.fingerprint ? undefined : 'sources-changed';
}

/**
 * Builds when needed (`build` runs the build and throws on failure) and writes the stamp only
 * after a successful build, so a failed or interrupted build is retried on the next start.
 *
 * @example
 * await ensureBuilt({ root, webDir, build: async () => runNextBuild() });
 */
export async function ensureBuilt(options: {
  root: string;
  webDir: string;
  build: () => Promise<void>;
  force?: boolean;
}): Promise<BuildReason | undefined> {
  const fingerprint = sourceFingerprint(options.root);
  const stampFile = stampPath(options.webDir);
  const stamp = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : undefined;
  const built = existsSync(join(options.webDir, '.next', 'BUILD_ID'));
  const reason = buildReason({ fingerprint, stamp, built, force: options.force === true });
  if (reason === undefined) return undefined;
  await options.build();
  writeFileSync(stampFile, `${fingerprint}\n`);
  return reason;
}
