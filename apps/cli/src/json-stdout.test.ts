/**
 * `--json` means JSON: each command that takes it, run as a real process, writes only JSON to
 * stdout. What libraries log through `console` (the SDK client's "server does not advertise
 * tools capability" notice, against a server without tools) goes to stderr.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, nodeArgs, tempDataDir } from '../../opsdesk/test/harness.js';

const run = promisify(execFile);
const NO_TOOLS = fileURLToPath(new URL('../test/no-tools-server.mjs', import.meta.url));
const NOTICE = 'does not advertise tools capability';
const data = tempDataDir();
afterAll(() => data.remove());

/** The CLI as a process: its exit code, stdout and stderr. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, nodeArgs(CLI, ...args), { timeout: 60_000 });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}

describe('--json writes only JSON to stdout', () => {
  it('tools: the SDK notice about a server without tools goes to stderr', async () => {
    const r = await cli(['tools', '--json', '--', process.execPath, NO_TOOLS]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ server: { name: 'no-tools' }, tools: [] });
    expect(r.err).toContain(NOTICE);
  });

  it('call: a tool the server lacks is an error on stderr, with nothing on stdout', async () => {
    const r = await cli(['call', 'deploy', '--json', '--', process.execPath, NO_TOOLS]);
    expect(r.code).not.toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toContain('has no tool "deploy" (it lists no tools)');
  });

  it('call: a result is JSON', async () => {
    const r = await cli(['call', 'opsdesk', 'list_deployments', '--json', '--data', data.dir]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ server: { name: 'opsdesk' }, result: { isError: false } });
  });

  it('doctor: the report is JSON', async () => {
    const r = await cli(['doctor', '--json', '--yes', '--', process.execPath, NO_TOOLS]);
    expect(JSON.parse(r.out)).toMatchObject({ server: { name: 'no-tools' } });
    expect(r.err).toContain(NOTICE);
  });

  it('audit: the records are JSON', async () => {
    const r = await cli(['audit', '--data', data.dir, '--json']);
    expect(r.code).toBe(0);
    expect(() => JSON.parse(r.out)).not.toThrow();
  });
});
