import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildReason, ensureBuilt, sourceFingerprint } from '../scripts/build-stamp';
import { childEnv, parseStartOptions, StartUsageError } from '../scripts/start-options';

describe('npm start options', () => {
  it('defaults to 127.0.0.1:3000', () => {
    expect(parseStartOptions([], {})).toEqual({ port: 3000, hostname: '127.0.0.1', buildOnly: false });
  });
  it('takes PORT, and --port over PORT', () => {
    expect(parseStartOptions([], { PORT: '4000' }).port).toBe(4000);
    expect(parseStartOptions(['--port', '4001'], { PORT: '4000' }).port).toBe(4001);
    expect(parseStartOptions(['--port=4002'], {}).port).toBe(4002);
    expect(parseStartOptions(['-p', '4003', '-H', '0.0.0.0'], {})).toMatchObject({ port: 4003, hostname: '0.0.0.0' });
    expect(parseStartOptions(['--hostname', 'localhost'], {}).hostname).toBe('localhost');
  });
  it.each([
    [['--port', 'abc'], {}, '--port must be a port number'],
    [['--port', '70000'], {}, '--port must be a port number'],
    [['--port', '-1'], {}, '--port must be a port number'],
    [['--port'], {}, '--port needs a value'],
    [['--hostname', ''], {}, '--hostname needs a value'],
    [[], { PORT: '3e3' }, 'PORT must be a port number'],
    [['--prot', '1'], {}, 'unknown option "--prot"'],
  ])('refuses %j %j clearly', (argv, env, message) => {
    expect(() => parseStartOptions(argv, env)).toThrow(StartUsageError);
    expect(() => parseStartOptions(argv, env)).toThrow(message);
  });
});

describe('the environment npm start runs Next in', () => {
  it('turns Next telemetry off unless the person said otherwise, and keeps everything else', () => {
    expect(childEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', NEXT_TELEMETRY_DISABLED: '1' });
    expect(childEnv({ NEXT_TELEMETRY_DISABLED: '0' }).NEXT_TELEMETRY_DISABLED).toBe('0');
  });
});

describe('build only when the sources changed', () => {
  it('decides from the build, the stamp and the fingerprint', () => {
    const base = { fingerprint: 'a', stamp: 'a', built: true, force: false };
    expect(buildReason(base)).toBeUndefined();
    expect(buildReason({ ...base, stamp: 'b' })).toBe('sources-changed');
    expect(buildReason({ ...base, stamp: undefined })).toBe('no-stamp');
    expect(buildReason({ ...base, built: false })).toBe('no-build');
    expect(buildReason({ ...base, force: true })).toBe('forced');
  });

  let rootDir: string | undefined;
  afterEach(() => {
    if (rootDir) rmSync(rootDir, { recursive: true, force: true });
  });

  function tree(): { root: string; webDir: string; builds: number[]; build: () => Promise<void> } {
    const root = mkdtempSync(join(tmpdir(), 'ek-start-'));
    rootDir = root;
    const webDir = join(root, 'apps', 'web');
    mkdirSync(join(webDir, 'app'), { recursive: true });
    mkdirSync(join(root, 'packages', 'form', 'src'), { recursive: true });
    writeFileSync(join(root, 'package-lock.json'), '{}');
    writeFileSync(join(root, 'packages', 'form', 'src', 'index.ts'), 'export const a = 1;');
    writeFileSync(join(webDir, 'app', 'page.tsx'), 'export default 1;');
    const builds: number[] = [];
    const build = async () => {
      builds.push(builds.length);
      mkdirSync(join(webDir, '.next'), { recursive: true });
      writeFileSync(join(webDir, '.next', 'BUILD_ID'), String(builds.length));
    };
    return { root, webDir, builds, build };
  }

  it('builds on the first start, not on the second, and again after a source, the lockfile or the build changed', async () => {
    const t = tree();
    expect(await ensureBuilt(t)).toBe('no-build');
    expect(await ensureBuilt(t)).toBeUndefined();
    expect(t.builds).toHaveLength(1);

    writeFileSync(join(t.root, 'packages', 'form', 'src', 'index.ts'), 'export const a = 2;');
    expect(await ensureBuilt(t)).toBe('sources-changed');
    writeFileSync(join(t.root, 'package-lock.json'), '{"v":2}');
    expect(await ensureBuilt(t)).toBe('sources-changed');
    expect(await ensureBuilt(t)).toBeUndefined();

    rmSync(join(t.webDir, '.next'), { recursive: true });
    expect(await ensureBuilt(t)).toBe('no-build');
    expect(t.builds).toHaveLength(4);
  });

  it('ignores build output, data, node_modules and tests', async () => {
    const t = tree();
    await ensureBuilt(t);
    const before = sourceFingerprint(t.root);
    for (const dir of ['node_modules', 'dist', 'test-results', '.elicitkit']) {
      mkdirSync(join(t.root, 'packages', 'form', dir), { recursive: true });
      writeFileSync(join(t.root, 'packages', 'form', dir, 'x.js'), 'x');
    }
    writeFileSync(join(t.root, 'packages', 'form', 'src', 'a.test.ts'), 'test');
    expect(sourceFingerprint(t.root)).toBe(before);
    expect(await ensureBuilt(t)).toBeUndefined();
  });

  it('writes no stamp when the build fails, so the next start builds again', async () => {
    const t = tree();
    await expect(
      ensureBuilt({
        ...t,
        build: async () => {
          throw new Error('next build failed');
        },
      }),
    ).rejects.toThrow('next build failed');
    expect(await ensureBuilt(t)).toBe('no-build');
    writeFileSync(join(t.root, 'packages', 'form', 'src', 'index.ts'), 'broken');
    await expect(ensureBuilt({ ...t, build: () => Promise.reject(new Error('tsc failed')) })).rejects.toThrow();
    expect(await ensureBuilt(t)).toBe('sources-changed');
  });
});
