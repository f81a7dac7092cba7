/**
 * What every published package's package.json must say, and what its tarball must (not) carry.
 * Offline and build-free (`npm pack --dry-run`); the full check of the tarballs — publint, attw,
 * and an install into a fresh project — is `npm run check:packages` and `npm run test:pack` in CI.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Packed, packWorkspaces, publicWorkspaces } from '../scripts/public-packages.js';

const REPOSITORY = 'git+https://github.com/elicitkit/elicitkit.git';
const workspaces = publicWorkspaces();
const out = mkdtempSync(join(tmpdir(), 'elicitkit-metadata-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('published packages', () => {
  it('are every workspace but the web app', () => {
    expect(workspaces.map((w) => w.dir)).toEqual([
      'apps/cli',
      'apps/opsdesk',
      'packages/client',
      'packages/form',
      'packages/react',
      'packages/server',
    ]);
  });

  it('depend only on workspaces that are published too (a private one is an E404 at install)', () => {
    const names = new Set(workspaces.map((w) => w.manifest.name));
    for (const { manifest } of workspaces) {
      const own = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter((d) =>
        d.startsWith('@elicitkit/'),
      );
      expect(
        own.filter((d) => !names.has(d)),
        manifest.name,
      ).toEqual([]);
    }
  });

  it.each(workspaces.map((w) => [w.manifest.name, w] as const))('%s has complete metadata', (_, { dir, manifest }) => {
    expect(manifest.license).toBe('MIT');
    expect(manifest.repository).toEqual({ type: 'git', url: REPOSITORY, directory: dir });
    expect(manifest.type).toBe('module');
    expect(manifest.engines?.node).toBe('>=22');
    expect(manifest.sideEffects).toBeDefined();
    expect(manifest.files).toContain('dist');
    const root = manifest.exports?.['.'];
    expect(typeof root === 'object' && root.types).toBe(manifest.types);
    for (const [subpath, entry] of Object.entries(manifest.exports ?? {})) {
      if (typeof entry === 'string') continue;
      // A stylesheet: shipped as written, with an empty declaration so that its import compiles.
      if (entry.default?.endsWith('.css')) {
        expect(entry.types, subpath).toBe(entry.default.replace(/\.css$/, '.css.d.ts'));
        continue;
      }
      expect(entry.types, subpath).toMatch(/^\.\/dist\/.+\.d\.ts$/);
      expect(entry.default, subpath).toMatch(/^\.\/dist\/.+\.js$/);
    }
  });

  describe('tarballs', () => {
    let packed: Packed[] = [];
    beforeAll(async () => {
      packed = await packWorkspaces(workspaces, out, { dryRun: true });
    });

    it('are one per published workspace', () => {
      expect(packed.map((p) => p.dir).sort()).toEqual(workspaces.map((w) => w.dir));
    });

    it('carry no tests, test helpers, build state or the repository-only serve bundle', () => {
      for (const p of packed) {
        const unwanted = p.files.filter(
          (f) =>
            /\.test\.tsx?$|^test\/|tsconfig|\.tsbuildinfo$|^dist\/bundle\/|^dist\/bundled\/stamp\.json$|\.(golden|fixture)$/.test(
              f,
            ) ||
            // the one suite that is public: @elicitkit/client/testing's registrySuite
            (/\.suite\./.test(f) && !f.includes('registry/registry.suite.')),
        );
        expect(unwanted, p.name).toEqual([]);
      }
    });

    it("carry the sources their exports' @elicitkit/source condition and source maps point at", () => {
      for (const p of packed) {
        const manifest = workspaces.find((w) => w.dir === p.dir)?.manifest;
        const sources = Object.values(manifest?.exports ?? {}).flatMap((e) =>
          typeof e === 'string' ? [e] : (e['@elicitkit/source'] ?? []),
        );
        expect(sources.length, p.name).toBeGreaterThan(0);
        expect(
          sources.filter((s) => !p.files.includes(s.replace(/^\.\//, ''))),
          p.name,
        ).toEqual([]);
      }
    });
  });
});
