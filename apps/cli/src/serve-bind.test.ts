/**
 * `elicitkit serve --http` with an address it cannot listen on is refused before the data
 * directory is made, seeded or reset: a `--host` that is neither an address nor a host name
 * (`1.2.3.4.5`) is a usage error (exit 2); an address of another machine, a name that resolves to
 * nothing, or a port another process holds, which only a bind can tell, exits 1 saying so. Was:
 * the data directory was made and seeded (and with `--reset --yes` reset) before the bind failed.
 * The CLI's `main`, as the shell runs it, and a real listener holding the port.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'ek-serve-bind-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `data-${n++}`);

// Making and reading a deployment is set-up: no connect deadline of ours (a fresh opsdesk's start
// outlasts 30 s on a loaded machine), one revision (one start of opsdesk per call, no probe).
const connectTimeout = process.env.ELICITKIT_CONNECT_TIMEOUT_MS;
beforeAll(() => {
  process.env.ELICITKIT_CONNECT_TIMEOUT_MS = '600000';
});
afterAll(() => {
  if (connectTimeout === undefined) delete process.env.ELICITKIT_CONNECT_TIMEOUT_MS;
  else process.env.ELICITKIT_CONNECT_TIMEOUT_MS = connectTimeout;
});
const ONE_REVISION = ['--revision', '2025-11-25'];

/** A data directory holding one deployment made since the seed (which has six). */
async function dataWithDeployment(): Promise<string> {
  const data = fresh();
  const made = await run([
    'call',
    'opsdesk',
    'deploy_service',
    'service=order-service',
    'env=dev',
    '--data',
    data,
    ...ONE_REVISION,
  ]);
  expect(made.code, made.err).toBe(0);
  return data;
}

async function deployments(data: string): Promise<string> {
  const listed = await run(['call', 'opsdesk', 'list_deployments', '--data', data, ...ONE_REVISION]);
  return listed.out.split('\n')[0] ?? '';
}

describe('serve --http: an address it cannot listen on', () => {
  it.each([['1.2.3.4.5'], ['300.1.1.1'], ['host name'], ['[::1]'], ['-x']])(
    '--host %j: a usage error, no data directory made',
    async (host) => {
      const data = fresh();
      const r = await run(['serve', '--http', '0', `--host=${host}`, '--data', data]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain('--host');
      expect(existsSync(data), 'the data directory was made').toBe(false);
    },
  );

  it('--host without --http: a usage error', async () => {
    const r = await run(['serve', '--stdio', '--host', '127.0.0.1', '--data', fresh()]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--host applies to --http');
  });

  it.each([
    // TEST-NET-1 (RFC 5737): an address no machine here has.
    ['192.0.2.1', 'EADDRNOTAVAIL'],
    // .invalid (RFC 2606) resolves to nothing.
    ['no-such-host.invalid', 'ENOTFOUND'],
  ])('--host %s: exit 1 saying %s, no data directory made', async (host, code) => {
    const data = fresh();
    const r = await run(['serve', '--http', '0', '--host', host, '--data', data]);
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain(code);
    expect(r.err).toContain('nothing was written or reset');
    expect(existsSync(data), 'the data directory was made').toBe(false);
  });

  it('a port another process holds, with --reset --yes: exit 1, the data not reset', async () => {
    const data = await dataWithDeployment();
    expect(await deployments(data)).toMatch(/^7 deployments/);
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const r = await run(['serve', '--http', String(port), '--reset', '--yes', '--data', data]);
      expect(r.code, r.err).toBe(1);
      expect(r.err).toContain('EADDRINUSE');
      const empty = fresh();
      const again = await run(['serve', '--http', String(port), '--data', empty]);
      expect(again.code).toBe(1);
      expect(existsSync(empty), 'the data directory was made').toBe(false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    expect(await deployments(data), 'the deployment was reset away').toMatch(/^7 deployments/);
  }, 300_000);

  it('an address of another machine with --reset --yes: the data not reset', async () => {
    const data = await dataWithDeployment();
    const r = await run(['serve', '--http', '0', '--host', '192.0.2.1', '--reset', '--yes', '--data', data]);
    expect(r.code, r.err).toBe(1);
    expect(await deployments(data), 'the deployment was reset away').toMatch(/^7 deployments/);
  }, 300_000);
});
