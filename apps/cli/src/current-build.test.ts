import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentBuild } from './current-build.js';

let root: string;
let bundle: URL;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ek-current-build-'));
  mkdirSync(join(root, 'dist', 'bundle'), { recursive: true });
  writeFileSync(join(root, 'tsconfig.tsbuildinfo'), '{}');
  writeFileSync(join(root, 'dist', 'bundle', 'cli.js'), '');
  bundle = pathToFileURL(join(root, 'dist', 'bundle/'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes the stamp as `scripts/bundle-serve.ts` does, from the build info's mtime now. */
function stamp(extra: Record<string, unknown> = {}): void {
  const buildInfo = { '../../tsconfig.tsbuildinfo': statSync(join(root, 'tsconfig.tsbuildinfo')).mtimeMs };
  writeFileSync(join(root, 'dist', 'bundle', 'stamp.json'), JSON.stringify({ entry: 'cli.js', buildInfo, ...extra }));
}

describe('currentBuild: serve runs the one-file build only while it is current', () => {
  it('answers the entry when every build info it was made after is unchanged', () => {
    stamp();
    expect(currentBuild(bundle)).toBe(new URL('cli.js', bundle).href);
  });

  it('answers nothing once tsc -b has rewritten a build info since the bundle was made', () => {
    stamp();
    const later = new Date(statSync(join(root, 'tsconfig.tsbuildinfo')).mtimeMs + 5_000);
    utimesSync(join(root, 'tsconfig.tsbuildinfo'), later, later);
    expect(currentBuild(bundle)).toBeUndefined();
  });

  it('answers nothing when a build info it names is gone', () => {
    stamp();
    rmSync(join(root, 'tsconfig.tsbuildinfo'));
    expect(currentBuild(bundle)).toBeUndefined();
  });

  it('answers nothing without a bundle, a stamp, or with a stamp it cannot read', () => {
    expect(currentBuild(bundle)).toBeUndefined(); // no stamp
    writeFileSync(join(root, 'dist', 'bundle', 'stamp.json'), '{"entry": "cli.js", "buildInfo"');
    expect(currentBuild(bundle)).toBeUndefined(); // truncated JSON
    stamp({ entry: 42 });
    expect(currentBuild(bundle)).toBeUndefined(); // wrong shape
    stamp({ buildInfo: null });
    expect(currentBuild(bundle)).toBeUndefined();
    stamp();
    rmSync(join(root, 'dist', 'bundle', 'cli.js'));
    expect(currentBuild(bundle)).toBeUndefined(); // stamp without its bundle
    expect(currentBuild(pathToFileURL(join(root, 'missing/')))).toBeUndefined();
  });
});
