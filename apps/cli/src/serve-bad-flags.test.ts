/**
 * `elicitkit serve` with a bad flag: a usage error naming the flag (exit 2), and nothing written —
 * no data directory made, and with `--reset --yes` the demo data not reset before the mistake is
 * found. Was: `--page-port x`, `--http x`, `--max-sessions 0` and `--user` over HTTP were read only
 * after `--reset` had put the data back to its seed (the deployments made since gone, exit 2); a
 * `--timeout-ms` past 2^31-1 ms, which the CLI took, was refused by the library after the data
 * directory was seeded (exit 1, naming `timeoutMs`); an empty `--user` ("$USER" unset) served as the
 * OS user, the local owner of every project. The CLI's `main`, as the shell runs it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'ek-serve-bad-flags-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `data-${n++}`);

describe('serve: a bad flag is refused before anything is written', () => {
  it.each([
    [['--timeout-ms', '3000000000'], '--timeout-ms'],
    [['--http', '0', '--timeout-ms', '2147483648'], '--timeout-ms'],
    [['--user', ''], '--user'],
    [['--stdio', '--page-port', 'x'], '--page-port'],
  ])('%j: a usage error naming %s, no data directory made', async (args, flag) => {
    const data = fresh();
    const r = await run(['serve', ...args, '--data', data]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(flag);
    expect(existsSync(data), 'the data directory was made').toBe(false);
  });

  it.each([
    [['--stdio', '--page-port', 'x'], '--page-port'],
    [['--http', 'x'], '--http'],
    [['--http', '0', '--max-sessions', '0'], '--max-sessions'],
    [['--http', '0', '--user', 'bob'], '--user'],
    [['--timeout-ms', '2147483648'], '--timeout-ms'],
  ])(
    '%j with --reset --yes: a usage error naming %s, the data not reset',
    async (args, flag) => {
      const data = fresh();
      // A deployment made since the seed: a reset takes it away.
      const made = await run([
        'call',
        'opsdesk',
        'deploy_service',
        'service=order-service',
        'env=dev',
        '--data',
        data,
        '--json',
      ]);
      expect(made.code).toBe(0);
      const r = await run(['serve', ...args, '--reset', '--yes', '--data', data]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(flag);
      // The seed has six.
      const listed = await run(['call', 'opsdesk', 'list_deployments', '--data', data]);
      expect(listed.out, 'the deployment was reset away').toMatch(/^7 deployments/);
    },
    60_000,
  );
});
