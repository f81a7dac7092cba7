/**
 * A 2026-07-28 call is stateless on the server, so a client can send an earlier round again with
 * another answer (a retry over a flaky network, a client that re-renders an old form). Here
 * register_user's account form is accepted and the person sets the password on the page — the
 * call has made its account — and then the account round is sent again. Declined or cancelled,
 * the result said the person declined and nothing was done, while this very call had made the
 * account; declined before the page was used, the link the accepted round gave out stayed live,
 * so the person could still make the account the call said it did not make.
 * Raw JSON-RPC rounds over loopback HTTP; the page over real HTTP.
 */
import { describe, expect, it } from 'vitest';
import { accept, pendingOf, type RoundParams, wireRound } from '../../../test/support/modern-wire.js';
import { setPasswordOnPage } from './cases.js';
import { httpOpsdeskForSuite, peek } from './harness.js';

const served = httpOpsdeskForSuite();
const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const call: RoundParams = { name: 'register_user', arguments: {} };
const accountOf = (dir: string, username: string) =>
  peek(dir, 'SELECT username FROM users WHERE username = ?', username);

/** A register_user call under a new owner, its account form accepted as `username`: the round's state and the page's link. */
async function pastAccountForm(username: string): Promise<{ token: string; requestState: string; url: string }> {
  const { server } = served;
  const token = await server.ownerToken(`asker-${username}`);
  const { requestState } = pendingOf(await wireRound(server.url, call, as(token)));
  const second = await wireRound(
    server.url,
    { ...call, inputResponses: { account: accountAnswer(username) }, requestState },
    as(token),
  );
  const url = (second.result?.inputRequests as Record<string, { params?: { url?: string } }>)?.password?.params?.url;
  if (typeof url !== 'string') throw new Error(`no password link: ${JSON.stringify(second.result)}`);
  return { token, requestState, url };
}

const accountAnswer = (username: string) => accept({ username, email: `${username}@example.com`, newsletter: false });

describe('register_user (2026-07-28): the account round sent again', () => {
  it.each(['decline', 'cancel'] as const)(
    '%s after the page made the account: the result reports it',
    async (action) => {
      const username = `made${action}`;
      const { token, requestState, url } = await pastAccountForm(username);
      expect((await setPasswordOnPage(url)).status).toBe(200);
      expect(accountOf(served.dataDir, username)).toEqual([{ username }]);

      const again = await wireRound(
        served.server.url,
        { ...call, inputResponses: { account: { action } }, requestState },
        as(token),
      );
      // The person's no stands (nothing more is done), and the account this call made is reported.
      expect(again.result?.isError).not.toBe(true);
      expect(again.result?.structuredContent).toMatchObject({
        status: action === 'decline' ? 'declined' : 'cancelled',
        username,
        passwordSet: true,
      });
      expect(JSON.stringify(again.result?.content)).toContain(username);
    },
  );

  it('declined before the page is used: the link given out earlier stops working, no account comes of it', async () => {
    const username = 'madeearly';
    const { token, requestState, url } = await pastAccountForm(username);
    const again = await wireRound(
      served.server.url,
      { ...call, inputResponses: { account: { action: 'decline' } }, requestState },
      as(token),
    );
    expect(again.result?.structuredContent).toMatchObject({ status: 'declined' });
    expect((await setPasswordOnPage(url)).status).not.toBe(200);
    expect(accountOf(served.dataDir, username)).toEqual([]);
  });
});
