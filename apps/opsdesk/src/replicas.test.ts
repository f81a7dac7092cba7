import { afterAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { count, tempDataDir } from '../test/harness.js';
import { type HttpServing, serveHttp } from './serve-http.js';

const tokenOf = (s: HttpServing, user: string) => s.newTokens.find((t) => t.username === user)?.token ?? '';
const DEPLOY = { name: 'deploy_service', arguments: { service: 'user-service', env: 'staging', version: 'v1.0.0' } };
const SECRET = 'a-configured-state-secret-of-at-least-32-chars';

/**
 * Replicas that do not share a data directory share the requestState key by configuration: a
 * round minted by one verifies on the other. Each has its own users' tokens; alice is alice on both.
 */
describe('the requestState key given by configuration', () => {
  const dirs = [tempDataDir(), tempDataDir(), tempDataDir()];
  const servers: HttpServing[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    for (const d of dirs) d.remove();
  });
  const start = async (dir: string, secret?: string) => {
    const s = await serveHttp({ dataDir: dir, locale: 'en', port: 0, ...(secret ? { secret } : {}) });
    servers.push(s);
    return s;
  };

  it('a round minted on one replica continues on another with the same configured key, and only then', async () => {
    const [one, two, other] = [
      await start(dirs[0]?.dir ?? '', SECRET),
      await start(dirs[1]?.dir ?? '', SECRET),
      await start(dirs[2]?.dir ?? ''),
    ];
    const ask = async () =>
      pendingOf(
        await wireRound(
          one.url,
          { ...DEPLOY, arguments: { ...DEPLOY.arguments, env: 'prod' } },
          { headers: { authorization: `Bearer ${tokenOf(one, 'alice')}` } },
        ),
      );
    const final = (requestState: string) => ({
      ...DEPLOY,
      arguments: { ...DEPLOY.arguments, env: 'prod' },
      inputResponses: { prod: accept({ confirmed: true, ticket: 'REL-3001' }) },
      requestState,
    });
    const onTwo = await wireRound(two.url, final((await ask()).requestState), {
      headers: { authorization: `Bearer ${tokenOf(two, 'alice')}` },
    });
    // Verified: the tool ran its check (REL-3001 is not approved) instead of refusing the state.
    expect(onTwo.result?.structuredContent).toMatchObject({ status: 'invalid' });
    // A replica with its own key (its data directory's) refuses the same state as invalid params.
    const onOther = await wireRound(other.url, final((await ask()).requestState), {
      headers: { authorization: `Bearer ${tokenOf(other, 'alice')}` },
    });
    expect(onOther.error?.code).toBe(-32_602);
    expect(count(dirs[2]?.dir ?? '', 'deployments')).toBe(count(dirs[1]?.dir ?? '', 'deployments'));
  }, 60_000);
});
