/**
 * The workspaces that are published (every one not `"private"`), what of their build a tarball
 * needs, and packing them. Used by `check-packages.ts`, `pack-install.ts` and
 * `test/package-metadata.test.ts`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, tail } from './run-command.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The fields of a workspace's package.json these checks read. */
export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  type?: string;
  sideEffects?: boolean | string[];
  engines?: { node?: string };
  types?: string;
  exports?: Record<string, string | Record<string, string>>;
  bin?: Record<string, string>;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

export interface Workspace {
  /** Relative to the repository, e.g. `packages/form`. */
  dir: string;
  manifest: Manifest;
}

/** Files a process entry needs beside what `exports` and `bin` name: opsdesk forks its shop worker by path. */
const PROCESS_ENTRIES: Record<string, string[]> = {
  '@elicitkit/opsdesk': ['dist/shop/worker-main.js'],
};

/**
 * Every workspace of the root `workspaces` globs (`packages/*`, `apps/*`) that is not private, by folder.
 *
 * @example
 * publicWorkspaces().map((w) => w.manifest.name) // ['elicitkit', '@elicitkit/opsdesk', '@elicitkit/client', …]
 */
export function publicWorkspaces(): Workspace[] {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  const dirs = root.workspaces.flatMap((glob) => {
    const parent = glob.replace(/\/\*$/, '');
    return readdirSync(join(ROOT, parent), { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(ROOT, parent, e.name, 'package.json')))
      .map((e) => `${parent}/${e.name}`);
  });
  return dirs
    .sort()
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest }))
    .filter((w) => w.manifest.private !== true);
}

/**
 * The built files a workspace's tarball must carry (its exports' `types`/`default` targets, its
 * bin, its process entries) that are not on disk: empty once `npm run build` has run.
 */
export function missingBuild(workspace: Workspace): string[] {
  const { manifest } = workspace;
  const targets = Object.values(manifest.exports ?? {}).flatMap((entry) =>
    typeof entry === 'string' ? [entry] : [entry.types, entry.default].filter((t) => t !== undefined),
  );
  const wanted = [...targets, ...Object.values(manifest.bin ?? {}), ...(PROCESS_ENTRIES[manifest.name] ?? [])];
  return wanted.filter((file) => !existsSync(join(ROOT, workspace.dir, file))).map((f) => join(workspace.dir, f));
}

/** Stops with what to do when any public workspace's build output is missing. */
export function requireBuild(workspaces: readonly Workspace[]): void {
  const missing = workspaces.flatMap(missingBuild);
  if (missing.length === 0) return;
  const listed = missing.slice(0, 8).join('\n  ');
  const more = missing.length > 8 ? `\n  … and ${missing.length - 8} more` : '';
  console.error(
    `The build output is missing:\n  ${listed}${more}\nRun \`npm run build\` first (this script builds nothing).`,
  );
  process.exit(1);
}

/** One packed tarball, as `npm pack --json` describes it. */
export interface Packed {
  name: string;
  dir: string;
  /** Absolute path of the .tgz. */
  file: string;
  size: number;
  entryCount: number;
  files: string[];
}

/**
 * `npm pack` of the given workspaces into `destination`, in one npm run (no lifecycle scripts
 * run: the workspaces have none, and the root's `prepare` is not a workspace's). With `dryRun`,
 * nothing is written and `file` names what would be.
 *
 * @example
 * const packed = await packWorkspaces(publicWorkspaces(), '/tmp/x'); // [{ name: 'elicitkit', file: '/tmp/x/elicitkit-0.1.0.tgz', … }, …]
 */
export async function packWorkspaces(
  workspaces: readonly Workspace[],
  destination: string,
  options: { dryRun?: boolean } = {},
): Promise<Packed[]> {
  const args = ['pack', '--json', '--pack-destination', destination, ...workspaces.flatMap((w) => ['-w', w.dir])];
  if (options.dryRun) args.push('--dry-run');
  const ran = await runCommand('npm', args, { cwd: ROOT, timeoutMs: 120_000 });
  if (ran.code !== 0) throw new Error(`${ran.command} failed (exit ${ran.code}):\n${tail(ran)}`);
  const report = JSON.parse(ran.stdout) as {
    name: string;
    filename: string;
    size: number;
    entryCount: number;
    files: { path: string }[];
  }[];
  return report.map((p) => {
    const workspace = workspaces.find((w) => w.manifest.name === p.name);
    if (!workspace) throw new Error(`npm pack packed ${p.name}, which is not one of the public workspaces`);
    return {
      name: p.name,
      dir: workspace.dir,
      file: join(destination, p.filename),
      size: p.size,
      entryCount: p.entryCount,
      files: p.files.map((f) => f.path),
    };
  });
}
