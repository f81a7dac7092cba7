/**
 * register_user on 2026-07-28: the account must carry what the person's last answer to the
 * account form said. A client answers the same round again (the person corrected their email or
 * took back the newsletter opt-in), keeps the same username, and carries on from that answer's
 * requestState: the link stands for the whole answer, so the corrected round shows a new link, the
 * first one stops working, and the account holds the corrected values the call reports `done` for.
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

function linkOf(round: Awaited<ReturnType<typeof wireRound>>): string {
  const requests = round.result?.inputRequests as Record<string, { params?: { url?: string } }> | undefined;
  const url = requests?.password?.params?.url;
  if (!url) throw new Error(`expected the password page, got ${round.body}`);
  return url;
}

describe('register_user: the account form answered again with the same name (2026-07-28)', () => {
  it('the account holds the email and newsletter choice of the answer the call completed with', async () => {
    const token = await server.ownerToken('reviewer');
    const call: RoundParams = { name: 'register_user', arguments: {} };
    const { requestState } = pendingOf(await wireRound(server.url, call, as(token)));
    const answer = (email: string, newsletter: boolean) =>
      wireRound(
        server.url,
        {
          ...call,
          inputResponses: { account: accept({ username: 'corrina', email, newsletter }) },
          requestState,
        },
        as(token),
      );

    // First answer: a typo in the email, and the newsletter ticked by mistake.
    const first = await answer('corrina@exmaple.com', true);
    // The person goes back and corrects both; the client sends that round again.
    const corrected = await answer('corrina@example.com', false);
    const link = linkOf(corrected);

    // The person sets the password on the page the corrected round showed.
    expect((await setPasswordOnPage(link)).status).toBe(200);

    // The call's last round carries on from the corrected answer and reports the account made.
    const last = await wireRound(
      server.url,
      { ...call, inputResponses: { password: { action: 'accept' } }, requestState: pendingOf(corrected).requestState },
      as(token),
    );
    expect(last.result?.structuredContent).toMatchObject({ status: 'done', username: 'corrina', passwordSet: true });
    // The first answer's link was for the typo: it no longer works.
    expect(linkOf(first)).not.toBe(link);
    expect((await setPasswordOnPage(linkOf(first))).status).toBe(404);

    const [row] = peek<{ email: string; newsletter: number }>(
      data.dir,
      "SELECT email, newsletter FROM users WHERE username = 'corrina'",
    );
    expect(
      row,
      'the account must hold the corrected answer (the one the call reported done for), not the first one',
    ).toEqual({ email: 'corrina@example.com', newsletter: 0 });
  });
});
