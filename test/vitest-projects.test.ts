/**
 * The suite's two projects (vitest.config.ts): most test files share their worker's process with
 * the files before them; a file that changes what outlasts it in a process (a module mocked, an
 * environment variable or a global stubbed, `process.env` written, the working directory changed),
 * and every web file, runs in a process of its own. The pattern that finds them is read here on
 * the ways each is written, and on the ways that change nothing.
 */
import { describe, expect, it } from 'vitest';
import config, { PROCESS_WIDE } from '../vitest.config.js';

const projects = (config.test?.projects ?? []) as { test: { name: string; include: string[]; exclude?: string[] } }[];
const own = projects.find((p) => p.test.name === 'own-process')?.test.include ?? [];

describe('which test files run in a process of their own', () => {
  it.each([
    "vi.mock('diff', async () => ({}));",
    "vi.doMock('./x.js');",
    "vi.stubEnv('TZ', 'UTC');",
    "vi.stubGlobal('CSS', {});",
    'process.chdir(dir);',
    'process.env.ELICITKIT_DATA = data;',
    "process.env['ELICITKIT_DATA'] = data;",
    'process.env[name] = value;',
    'delete process.env.OPENAI_API_KEY;',
    'delete process.env[name];',
  ])('%s: its own', (line) => {
    expect(PROCESS_WIDE.test(line)).toBe(true);
  });

  it.each([
    "if (process.env.CI === 'true') return;",
    "const env = { ...process.env, FORCE_COLOR: '0' };",
    'expect(process.env.HOME).toBeDefined();',
    "execFile(process.execPath, [], { env: { ...process.env, X: '1' } });",
    'vi.fn(); vi.spyOn(console, "log");',
  ])('%s: shared', (line) => {
    expect(PROCESS_WIDE.test(line)).toBe(false);
  });

  it('puts the web files and the files that change a process in their own; the others share', () => {
    expect(own).toEqual(expect.arrayContaining(['apps/web/test/api.test.ts', 'apps/cli/src/header-secret.test.ts']));
    expect(own.filter((f) => f.startsWith('apps/web/')).length).toBeGreaterThan(50);
    const shared = projects.find((p) => p.test.name === 'shared')?.test;
    expect(shared?.exclude).toEqual(expect.arrayContaining(own));
    expect(own).not.toContain('packages/client/src/json-text.test.ts');
  });
});
