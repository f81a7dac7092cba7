/**
 * `npm run check:packages` (CI: .ci/run): packs every public workspace once and lints the tarballs
 * a user would get — publint (package.json against the packed files; warnings fail too) and
 * @arethetypeswrong/cli (how TypeScript resolves each entry point's types). Builds nothing: run
 * `npm run build` first. Offline.
 *
 *   node --import tsx scripts/check-packages.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packWorkspaces, publicWorkspaces, ROOT, requireBuild } from './public-packages.js';
import { type Ran, runCommand, seconds, tail } from './run-command.js';

const BIN = join(ROOT, 'node_modules/.bin');

/**
 * attw's profile: `esm-only`. Every package is `"type": "module"` with import-only exports, so
 * the two resolutions that profile leaves out are deliberate non-goals: `node10` (TypeScript's
 * pre-exports resolution, which cannot see subpaths) and `node16` from CommonJS (require() of an
 * ESM-only package; Node ≥ 22, the packages' engines, can load it, TypeScript still flags it).
 */
const ATTW_PROFILE = 'esm-only';

/** Entry points attw must not judge, by package: each is not a module. */
const ATTW_EXCLUDED: Record<string, string[]> = {};

const started = performance.now();
const workspaces = publicWorkspaces();
requireBuild(workspaces);
const out = mkdtempSync(join(tmpdir(), 'elicitkit-check-'));
let failed = 0;
try {
  const packed = await packWorkspaces(workspaces, out);
  console.log(`check-packages: ${packed.length} tarballs packed (${packed.map((p) => p.name).join(', ')})`);
  const checks = packed.map(async (p) => {
    const excluded = ATTW_EXCLUDED[p.name] ?? [];
    const [publint, attw] = await Promise.all([
      runCommand(join(BIN, 'publint'), ['run', p.file, '--strict'], { cwd: ROOT, timeoutMs: 120_000 }),
      runCommand(
        join(BIN, 'attw'),
        [
          p.file,
          '--profile',
          ATTW_PROFILE,
          '--format',
          'table-flipped',
          '--no-color',
          ...(excluded.length > 0 ? ['--exclude-entrypoints', ...excluded] : []),
        ],
        { cwd: ROOT, timeoutMs: 120_000 },
      ),
    ]);
    return { p, publint, attw };
  });
  for (const { p, publint, attw } of await Promise.all(checks)) {
    const verdict = (ran: Ran) => (ran.code === 0 ? 'ok' : ran.timedOut ? 'TIMED OUT' : `FAILED (exit ${ran.code})`);
    const ok = publint.code === 0 && attw.code === 0;
    if (!ok) failed += 1;
    console.log(`${ok ? '✓' : '✗'} ${p.name} (${p.dir}): publint ${verdict(publint)}, attw ${verdict(attw)}`);
    if (publint.code !== 0) console.log(`  ${publint.command}\n${tail(publint)}`);
    if (attw.code !== 0) console.log(`  ${attw.command}\n${tail(attw, 80)}`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
const took = seconds(performance.now() - started);
if (failed > 0) {
  console.error(`check-packages: ${failed} package(s) failed publint or attw (${took}).`);
  process.exit(1);
}
console.log(`check-packages: every public package passes publint and attw (${took}).`);
