/**
 * `elicitkit serve --http … --reset --yes` resets nothing until every check that could refuse the
 * start has passed. Was: `--host 0.0.0.0` without `ELICITKIT_ALLOWED_HOSTS` (or with an entry that
 * is no host, `https://ops.example.com:443`) and a `--redis` nobody answers at were refused only by
 * opsdesk's start, after `--reset` had put the data back to its seed (and made the data directory
 * where there was none). The CLI's `main`, as the shell runs it; a real port with nobody on it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/service.js';
import { runCli as run } from '../test/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'ek-serve-checks-first-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `data-${n++}`);

const saved = { ...process.env };
beforeAll(async () => {
  // Set-up calls connect without a deadline of ours (a loaded machine); serve loaded here, not in a case.
  process.env.ELICITKIT_CONNECT_TIMEOUT_MS = '600000';
  await import('./commands/serve.js');
}, 300_000);
afterEach(() => {
  for (const key of ['ELICITKIT_ALLOWED_HOSTS', 'ELICITKIT_REDIS_URL', 'ELICITKIT_STATE_SECRET'])
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
});
afterAll(() => {
  if (saved.ELICITKIT_CONNECT_TIMEOUT_MS === undefined) delete process.env.ELICITKIT_CONNECT_TIMEOUT_MS;
  else process.env.ELICITKIT_CONNECT_TIMEOUT_MS = saved.ELICITKIT_CONNECT_TIMEOUT_MS;
});

describe('serve --reset: nothing reset before every check passed', () => {
  it.each([
    ['0.0.0.0', undefined, 'ELICITKIT_ALLOWED_HOSTS'],
    ['::', '', 'ELICITKIT_ALLOWED_HOSTS'],
    ['0.0.0.0', ' , ', 'ELICITKIT_ALLOWED_HOSTS'],
    ['0.0.0.0', 'https://ops.example.com', '"https://ops.example.com"'],
    ['127.0.0.1', 'ops.example.com:443', '"ops.example.com:443"'],
    ['0.0.0.0', 'ops.example.com,0.0.0.0', '"0.0.0.0"'],
  ])(
    '--host %s with ELICITKIT_ALLOWED_HOSTS=%j: a usage error naming %s, no data directory made',
    async (host, allowed, named) => {
      if (allowed === undefined) delete process.env.ELICITKIT_ALLOWED_HOSTS;
      else process.env.ELICITKIT_ALLOWED_HOSTS = allowed;
      const data = fresh();
      const r = await run(['serve', '--http', '0', '--host', host, '--reset', '--yes', '--data', data]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain(named);
      expect(existsSync(data), 'the data directory was made (reset)').toBe(false);
    },
  );

  it('a Redis nobody answers at: exit 1 naming it, without its password, no data directory made', async () => {
    const port = await freePort();
    process.env.ELICITKIT_STATE_SECRET = 'k'.repeat(32);
    const data = fresh();
    const url = `redis://:hunter2secret@127.0.0.1:${port}`;
    const r = await run(['serve', '--http', '0', '--redis', url, '--reset', '--yes', '--data', data]);
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('ECONNREFUSED');
    expect(r.err).toContain('nothing was written or reset');
    expect(r.err).not.toContain('hunter2secret');
    expect(existsSync(data), 'the data directory was made (reset)').toBe(false);
  });

  it('a Redis that takes the connection and never answers: exit 1, no data directory made', async () => {
    const sockets: Socket[] = [];
    const deaf = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => deaf.listen(0, '127.0.0.1', resolve));
    const { port } = deaf.address() as AddressInfo;
    process.env.ELICITKIT_STATE_SECRET = 'k'.repeat(32);
    const data = fresh();
    try {
      const r = await run([
        'serve',
        '--http',
        '0',
        '--redis',
        `redis://127.0.0.1:${port}`,
        '--reset',
        '--yes',
        '--data',
        data,
      ]);
      expect(r.code, r.err).toBe(1);
      expect(r.err).toContain(`cannot reach Redis at redis://127.0.0.1:${port}`);
      expect(existsSync(data), 'the data directory was made (reset)').toBe(false);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => deaf.close(resolve));
    }
  });

  it('a deployment made since the seed survives a wildcard bind refused for want of allowed hosts', async () => {
    delete process.env.ELICITKIT_ALLOWED_HOSTS;
    const data = fresh();
    const one = ['--data', data, '--revision', '2025-11-25'];
    const made = await run(['call', 'opsdesk', 'deploy_service', 'service=order-service', 'env=dev', ...one]);
    expect(made.code, made.err).toBe(0);
    const r = await run(['serve', '--http', '0', '--host', '0.0.0.0', '--reset', '--yes', '--data', data]);
    expect(r.code, r.err).toBe(2);
    const listed = await run(['call', 'opsdesk', 'list_deployments', ...one]);
    // The seed has six.
    expect(listed.out, 'the deployment was reset away').toMatch(/^7 deployments/);
  }, 300_000);
});
