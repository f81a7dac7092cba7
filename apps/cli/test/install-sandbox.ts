/**
 * The install tests' world: a fresh temporary home and working directory per test, and `run`,
 * which calls `elicitkit install` there and collects what it printed.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type InstallEnvironment, install } from '../src/commands/install.js';

export interface InstallSandbox {
  /** The temporary folder holding `home/` and `work/` (the current directory). */
  readonly root: string;
  readonly env: InstallEnvironment;
  run(argv: string[], overrides?: Partial<InstallEnvironment>): Promise<{ code: number; out: string[]; err: string[] }>;
}

export function installSandbox(defaultCommand: string[] = []): InstallSandbox {
  let root = '';
  let env: InstallEnvironment | undefined;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'elicitkit-install-'));
    env = { home: join(root, 'home'), cwd: join(root, 'work'), platform: 'linux', appData: undefined, defaultCommand };
    await mkdir(env.home);
    await mkdir(env.cwd);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));
  const current = (): InstallEnvironment => {
    if (!env) throw new Error('installSandbox: used outside a test');
    return env;
  };
  return {
    get root() {
      return root;
    },
    get env() {
      return current();
    },
    async run(argv, overrides = {}) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await install(
        argv,
        { out: (l) => out.push(l), err: (l) => err.push(l) },
        { ...current(), ...overrides },
      );
      return { code, out, err };
    },
  };
}
