/**
 * register_user on 2026-07-28: the person declines (or cancels) the password page, and the link
 * stops working. A client sends an earlier round of the call again — the one that carried the
 * account form's answer. Was: it asked for the password again with the same link, made live again
 * for another 15 minutes, and the page then made the account the person had refused. Now the
 * call's end is recorded with its claim: every round of it sent again gets the refusal, the link
 * stays dead, no account is made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, pendingOf, type RoundParams, wireRound } from '../../../../test/support/modern-wire.js';
import { setPasswordOnPage } from '../../test/cases.js';
import { peek, tempDataDir } from '../../test/harness.js';
import { type HttpServing, serveHttp } from '../serve-http.js';

let data: ReturnType<typeof tempDataDir>;
let server: HttpServing;

beforeAll(async () => {
  data = tempDataDir();
  server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0, urlWaitMs: 200 });
});
afterAll(async () => {
  await server.close();
  data.remove();
});

const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('register_user: a refused password page stays refused (2026-07-28)', () => {
  it.each(['decline', 'cancel'] as const)(
    'after a %s, the account round sent again: refused, the link dead, no account',
    async (action) => {
      const token = await server.ownerToken('reviewer');
      const username = `refuser-${action}`;
      const call: RoundParams = { name: 'register_user', arguments: {} };
      const first = pendingOf(await wireRound(server.url, call, as(token)));
      const accountRound: RoundParams = {
        ...call,
        requestState: first.requestState,
        inputResponses: { account: accept({ username, email: `${username}@example.com`, newsletter: false }) },
      };
      const asked = await wireRound(server.url, accountRound, as(token));
      const requests = asked.result?.inputRequests as { password?: { params?: { url?: string } } } | undefined;
      const url = requests?.password?.params?.url ?? '';
      expect(url).toMatch(/^http:\/\/.*\/register\//);
      const refused = await wireRound(
        server.url,
        { ...call, requestState: pendingOf(asked).requestState, inputResponses: { password: { action } } },
        as(token),
      );
      const status = action === 'decline' ? 'declined' : 'cancelled';
      expect(refused.result?.structuredContent).toMatchObject({ status });
      expect((await fetch(url)).status).toBe(404);

      const again = await wireRound(server.url, accountRound, as(token));
      expect(again.result?.resultType).not.toBe('input_required');
      expect(again.result?.structuredContent).toMatchObject({ status });
      expect((await fetch(url)).status).toBe(404);
      expect((await setPasswordOnPage(url)).status).toBe(404);
      expect(peek(data.dir, 'SELECT 1 FROM users WHERE username = ?', username)).toEqual([]);
    },
  );
});
