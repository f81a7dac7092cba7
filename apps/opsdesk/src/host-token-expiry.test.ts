/**
 * A host's bearer token (`issueToken`) stops working once it expires, a day after its host last
 * renewed it, whether or not another host has pruned it yet, and even when this process
 * remembers it from earlier requests: over real HTTP, on SQLite. (On Postgres: postgres.test.ts.)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDataDir } from '../test/harness.js';
import { initializeStatus } from '../test/raw-http.js';
import { HOST_TOKEN_TTL_MS, issueToken } from './identity.js';
import { type HttpServing, serveHttp } from './serve-http.js';

describe('host tokens expire a day after their host last renewed them', () => {
  let data: ReturnType<typeof tempDataDir>;
  let served: HttpServing;
  beforeAll(async () => {
    data = tempDataDir();
    served = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0 });
  });
  afterAll(async () => {
    await served.close();
    data.remove();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a token whose host stopped renewing it over a day ago is refused (401), though nobody pruned it', async () => {
    const lapsed = await issueToken(served.opsdesk.store, 'alice', {
      now: () => Date.now() - HOST_TOKEN_TTL_MS - 60_000,
    });
    expect(await initializeStatus(served.url, lapsed)).toBe(401);
    expect(await initializeStatus(served.url, await issueToken(served.opsdesk.store, 'alice'))).toBe(200);
  });

  it('a token remembered from earlier requests is refused once its day has passed', async () => {
    const token = await issueToken(served.opsdesk.store, 'bob');
    // Twice: the second is answered from what the process remembers.
    expect(await initializeStatus(served.url, token)).toBe(200);
    expect(await initializeStatus(served.url, token)).toBe(200);
    // A day passes with nothing written: no table changes, so nothing remembered is forgotten.
    vi.setSystemTime(Date.now() + HOST_TOKEN_TTL_MS + 60_000);
    expect(await initializeStatus(served.url, token)).toBe(401);
  });
});
