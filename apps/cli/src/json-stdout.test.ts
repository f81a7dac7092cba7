/**
 * `--json` means JSON: each command that takes it, run as a real process, writes only JSON to
 * stdout. What libraries log through `console` (the SDK client's "server does not advertise
 * tools capability" notice, against a server without tools) goes to stderr.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../../opsdesk/test/harness.js';
import { runCliProcess as cli } from '../test/cli-process.js';

const NO_TOOLS = fileURLToPath(new URL('../test/no-tools-server.mjs', import.meta.url));
const NOTICE = 'does not advertise tools capability';
const data = tempDataDir();
afterAll(() => data.remove());

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
