import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildReason, ensureBuilt, sourceFingerprint } from '../scripts/build-stamp';
import { portProblem, preflight } from '../scripts/preflight';
import { childEnv, parseStartOptions, StartUsageError } from '../scripts/start-options';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../..');

/**
 * Runs the script behind `npm start` as a person does, in its own process group. It must stop by
 * itself within `ms`: one that went on to build or serve is stopped, and says so in `output`.
 */
function npmStart(
  args: string[],
  env: Record<string, string>,
  ms = 40_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/web/scripts/start.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ELICITKIT_DATA: join(tmpdir(), 'elicitkit-start-test'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => {
      stdout += '\n[still running: stopped by the test]';
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** A port another process holds (here: a server of this test), on 127.0.0.1. */
async function busyPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, server };
}

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

describe('npm start refuses in one line, before building or serving', () => {
  it('a busy port: which one, and what to do instead of Next’s EADDRINUSE stack', async () => {
    const { port, server } = await busyPort();
    try {
      const run = await npmStart(['--port', String(port)], {});
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `npm start: port ${port} is in use on 127.0.0.1: stop the other process, or pick another port (PORT=${port + 1} npm start, or npm start -- --port ${port + 1})\n`,
      );
      // Refused before the build check: nothing built, nothing served.
      expect(run.stdout).toBe('');
    } finally {
      server.close();
    }
  }, 60_000);

  it('a malformed ELICITKIT_SERVERS: the configuration problem, before the port or a build', async () => {
    // The port is busy too: were the configuration not checked first, the port would be the complaint.
    const { port, server } = await busyPort();
    try {
      const json = await npmStart(['--port', String(port)], {
        ELICITKIT_SERVERS: '[{"name":"ops","headers":{"authorization":Bearer ek_secret_token"}}]',
      });
      expect(json.code).toBe(2);
      expect(json.stderr).toBe(
        "npm start: the configuration is invalid: ELICITKIT_SERVERS is not valid JSON: Unexpected token 'B'\n",
      );
      expect(json.stdout).toBe('');
      const shape = await npmStart([], { PORT: String(port), ELICITKIT_SERVERS: '{"name":"ops"}' });
      expect(shape.code).toBe(2);
      expect(shape.stderr).toBe(
        'npm start: the configuration is invalid: ELICITKIT_SERVERS must be a non-empty JSON array\n',
      );
    } finally {
      server.close();
    }
  }, 90_000);

  it('a good configuration and a free port pass', async () => {
    const { port, server } = await busyPort();
    await new Promise((closed) => server.close(closed));
    const env = { ...process.env, ELICITKIT_SERVERS: '[{"name":"ops","url":"http://127.0.0.1:7777/mcp"}]' };
    expect(await preflight({ port, hostname: '127.0.0.1', env, cwd: ROOT })).toBeUndefined();
  }, 30_000);

  it('portProblem: free, in use, and an address that is not this machine’s', async () => {
    const { port, server } = await busyPort();
    try {
      expect(await portProblem(port, '127.0.0.1')).toMatch(new RegExp(`^port ${port} is in use on 127\\.0\\.0\\.1: `));
    } finally {
      await new Promise((closed) => server.close(closed));
    }
    expect(await portProblem(port, '127.0.0.1')).toBeUndefined();
    // 192.0.2.1 is TEST-NET-1: never an address of this machine.
    expect(await portProblem(port, '192.0.2.1')).toBe(
      '192.0.2.1 is not an address of this machine: pass --hostname 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)',
    );
  });
});
