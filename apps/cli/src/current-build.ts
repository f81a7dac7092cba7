import { readFileSync, statSync } from 'node:fs';

/**
 * The entry of the one-file build in `dir` (a directory URL ending in `/`) if it is current:
 * every tsbuildinfo its stamp names still has the mtime it had when the bundle was made. A
 * `tsc -b` that rebuilt anything since rewrote one of them, so a stale bundle is never run. No
 * bundle, no stamp or an unreadable one also answer `undefined`: run `dist/` instead.
 *
 * @example
 * currentBuild(new URL('../dist/bundle/', import.meta.url)) // 'file:///…/dist/bundle/cli.js' or undefined
 */
export function currentBuild(dir: URL): string | undefined {
  let stamp: unknown;
  try {
    stamp = JSON.parse(readFileSync(new URL('stamp.json', dir), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isStamp(stamp)) return undefined;
  for (const [file, mtimeMs] of Object.entries(stamp.buildInfo)) {
    if (statSync(new URL(file, dir), { throwIfNoEntry: false })?.mtimeMs !== mtimeMs) return undefined;
  }
  const entry = new URL(stamp.entry, dir);
  return statSync(entry, { throwIfNoEntry: false })?.isFile() ? entry.href : undefined;
}

function isStamp(value: unknown): value is { entry: string; buildInfo: Record<string, unknown> } {
  if (typeof value !== 'object' || value === null) return false;
  const { entry, buildInfo } = value as Record<string, unknown>;
  return typeof entry === 'string' && typeof buildInfo === 'object' && buildInfo !== null;
}
