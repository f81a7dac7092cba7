/**
 * `elicitkit serve --http`, 2026-07-28 raw JSON-RPC. register_user: the person answered the
 * account form and set the password on the page, so the account exists. The round carrying the
 * page's answer arrives from alice's client declaring form mode only (capabilities travel in each
 * request's `_meta` on 2026-07-28). The call must report the account made — as it does when the
 * page's dialog is declined or cancelled after the page was used — never "did nothing" (was:
 * `unsupported`, "register_user did nothing", beside the account it had made).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, ENVELOPE, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { setPasswordOnPage } from '../test/cases.js';
import { type HttpProcess, peek, serveHttpProcess, tempDataDir } from '../test/harness.js';

let data: ReturnType<typeof tempDataDir>;
let served: HttpProcess;
const as = (user: string) => ({ headers: { authorization: `Bearer ${served.tokens[user]}` } });

beforeAll(async () => {
  data = tempDataDir();
  served = await serveHttpProcess(data.dir);
}, 60_000);
afterAll(async () => {
  await served.stop();
  data.remove();
});

/** One `tools/call` round whose envelope declares form mode only. */
async function formOnlyRound(params: Record<string, unknown>, token: string) {
  const response = await fetch(served.url, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-method': 'tools/call',
      'mcp-name': 'register_user',
      'mcp-protocol-version': '2026-07-28',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        ...params,
        _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } },
      },
    }),
  });
  return JSON.parse(await response.text()) as { result?: { structuredContent?: Record<string, unknown> } };
}

describe('register_user: the page used, its answer carried by a round without URL mode', () => {
  it('reports the account made, not "register_user did nothing"', async () => {
    const first = pendingOf(await wireRound(served.url, { name: 'register_user', arguments: {} }, as('alice')));
    const second = await wireRound(
      served.url,
      {
        name: 'register_user',
        arguments: {},
        inputResponses: { account: accept({ username: 'lena', email: 'lena@example.com', newsletter: false }) },
        requestState: first.requestState,
      },
      as('alice'),
    );
    const page = pendingOf(second);
    const requests = (second.result?.inputRequests ?? {}) as Record<string, { params: { url: string } }>;
    expect((await setPasswordOnPage(requests.password?.params.url ?? '')).status).toBe(200);
    expect(peek(data.dir, "SELECT COUNT(*) AS n FROM users WHERE username = 'lena'")).toEqual([{ n: 1 }]);

    const last = await formOnlyRound(
      {
        name: 'register_user',
        arguments: {},
        inputResponses: { password: { action: 'accept' } },
        requestState: page.requestState,
      },
      served.tokens.alice ?? '',
    );
    expect(
      last.result?.structuredContent,
      'the account exists, yet register_user answered that it did nothing',
    ).toMatchObject({ status: 'done', username: 'lena', passwordSet: true });
  });
});
