/**
 * A 2026-07-28 call is stateless on the server: a client can answer the same round twice, with
 * different answers, and carry on with both results. For register_user that is one call (one
 * context id) with two registrations. The call must end with at most one account, the page must
 * answer every link with a page (never a 500 carrying SQLite's words), and no result may claim an
 * account that was not made. Raw JSON-RPC rounds against `serveHttp`, the pages over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, type RoundParams, wireRound } from '../../../test/support/modern-wire.js';
import { setPasswordOnPage } from '../test/cases.js';
import { peek, tempDataDir } from '../test/harness.js';
import { type HttpServing, serveHttp } from './serve-http.js';

// A short wait for the page on a consent (the fork whose link was withdrawn never completes).
const served = {} as { server: HttpServing; dataDir: string };
let data: ReturnType<typeof tempDataDir>;
beforeAll(async () => {
  data = tempDataDir();
  served.dataDir = data.dir;
  served.server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0, urlWaitMs: 200 });
});
afterAll(async () => {
  await served.server.close();
  data.remove();
});
const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

function linkOf(round: Awaited<ReturnType<typeof wireRound>>): string {
  const requests = round.result?.inputRequests as Record<string, { params?: { url?: string } }> | undefined;
  const url = requests?.password?.params?.url;
  if (!url) throw new Error(`expected the password page, got ${round.body}`);
  return url;
}

describe('register_user: one call answered twice with two names (2026-07-28)', () => {
  it.each([
    ['both links out before either page is used', false, 'forkone', 'forktwo'],
    ['the first page used before the second link is given out', true, 'forkthree', 'forkfour'],
  ])(
    '%s: one account at most, every link answers with a page, only the account made is reported',
    async (_label, early, one, two) => {
      const token = served.server.ownerToken(`frank${one}`);
      const call: RoundParams = { name: 'register_user', arguments: {} };
      const { requestState } = pendingOf(await wireRound(served.server.url, call, as(token)));
      const fork = (username: string) =>
        wireRound(
          served.server.url,
          {
            ...call,
            inputResponses: { account: accept({ username, email: `${username}@example.com`, newsletter: false }) },
            requestState,
          },
          as(token),
        );
      const answers = [];
      const first = await fork(one);
      if (early) answers.push(await setPasswordOnPage(linkOf(first)));
      const second = await fork(two);
      if (!early) answers.push(await setPasswordOnPage(linkOf(first)));
      answers.push(await setPasswordOnPage(linkOf(second)));
      for (const r of answers) {
        expect(r.status).toBeLessThan(500);
        expect(r.headers.get('content-type')).toContain('text/html');
      }
      const made = peek<{ username: string }>(
        served.dataDir,
        'SELECT username FROM users WHERE username IN (?, ?)',
        one,
        two,
      );
      expect(made).toHaveLength(1);

      // Each fork's last round: consent given. Only the fork whose name became the account says so.
      const results = [];
      for (const [i, round] of [first, second].entries()) {
        const last = await wireRound(
          served.server.url,
          {
            ...call,
            inputResponses: { password: { action: 'accept' } },
            requestState: pendingOf(round).requestState,
          },
          as(token),
        );
        results.push({ username: i === 0 ? one : two, structured: last.result?.structuredContent });
      }
      const claimed = results.filter((r) => (r.structured as { passwordSet?: boolean }).passwordSet === true);
      expect(claimed.map((r) => r.username)).toEqual(made.map((m) => m.username));
      for (const r of results) {
        if ((r.structured as { passwordSet?: boolean }).passwordSet)
          expect(r.structured).toMatchObject({ status: 'done', username: r.username });
        else expect((r.structured as { status: string }).status).not.toBe('done');
      }
    },
  );
});
