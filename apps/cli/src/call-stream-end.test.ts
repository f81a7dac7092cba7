/**
 * `elicitkit call` against an HTTP server whose response stream for the call ends without the
 * response (a proxy cutting it): the call fails at once, saying it may or may not have run, rather
 * than waiting out its 15-minute timeout. Real opsdesk over loopback HTTP, behind a real proxy.
 */
import { join } from 'node:path';
import { STREAM_ENDED_MESSAGE } from '@elicitkit/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCuttingProxy } from '../../../test/support/cutting-proxy.js';
import { type HttpServing, serveHttp } from '../../opsdesk/src/serve-http.js';
import { tempDataDir } from '../../opsdesk/test/harness.js';
import { runCli as run } from '../test/run-cli.js';

let data: ReturnType<typeof tempDataDir>;
let http: HttpServing;
let proxy: Awaited<ReturnType<typeof startCuttingProxy>>;
beforeAll(async () => {
  data = tempDataDir();
  http = await serveHttp({ dataDir: join(data.dir, 'http'), locale: 'en', port: 0 });
  proxy = await startCuttingProxy(http.url);
});
afterAll(async () => {
  await proxy.stop();
  await http.close();
  data.remove();
});

const auth = () => ['--header', `Authorization: Bearer ${http.newTokens.find((t) => t.username === 'alice')?.token}`];

describe.each(['2025-11-25', '2026-07-28'] as const)('elicitkit call, a response stream cut (%s)', (revision) => {
  it('fails at once with exit 1, saying the call may or may not have run', async () => {
    proxy.cut.add('list_deployments');
    try {
      const r = await run(['call', proxy.url, 'list_deployments', '--revision', revision, ...auth()]);
      expect(r.code).toBe(1);
      expect(r.err).toContain(STREAM_ENDED_MESSAGE);
      expect(r.out).toBe('');
    } finally {
      proxy.cut.delete('list_deployments');
    }
  });

  it('an uncut call through the same proxy still works', async () => {
    const r = await run(['call', proxy.url, 'list_deployments', '--revision', revision, ...auth()]);
    expect(r.code).toBe(0);
    expect(r.err).not.toContain(STREAM_ENDED_MESSAGE);
  });
});
