import type { Revision } from '@elicitkit/form';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { accept, pendingOf, type RoundParams, wireRound } from '../../../../test/support/modern-wire.js';
import { setPasswordOnPage } from '../../test/cases.js';
import { type Conn, count, httpClient, memoryClient, peek, tempDataDir } from '../../test/harness.js';
import { type HttpServing, serveHttp } from '../serve-http.js';

let data: ReturnType<typeof tempDataDir>;
let server: HttpServing;
const tokenOf = (user: string) => server.newTokens.find((t) => t.username === user)?.token ?? '';

beforeAll(async () => {
  data = tempDataDir();
  server = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0, urlWaitMs: 200 });
});
afterAll(async () => {
  await server.close();
  data.remove();
});

describe.each(['2025-11-25', '2026-07-28'] as Revision[])('register_user end to end over HTTP (%s)', (revision) => {
  // Usernames are at most 20 characters: the revision goes in as its six digits.
  const tag = revision.replaceAll('-', '').slice(2);
  let c: Conn;
  beforeAll(async () => {
    c = await httpClient(server.url, tokenOf('alice'), { revision });
  });
  afterAll(async () => {
    await c.close();
  });

  it('form, then the password page, then done; the link works once', async () => {
    const username = `dana_${tag}`;
    let link = '';
    c.script.push(
      { action: 'accept', content: { username, email: `${username}@example.com`, newsletter: true } },
      async (params) => {
        link = String(params.url);
        expect(params.mode).toBe('url');
        expect(link).toMatch(new RegExp(`^${server.url.replace('/mcp', '')}/register/[A-Za-z0-9_-]{40,}$`));
        expect(new URL(link).search).toBe('');
        const response = await setPasswordOnPage(link);
        expect(response.status).toBe(200);
        return { action: 'accept' };
      },
    );
    const r = await callTool(c.client, 'register_user');
    expect(r.structured).toMatchObject({ status: 'done', username, passwordSet: true });
    const [row] = peek<{ email: string; newsletter: number; password_hash: string }>(
      data.dir,
      'SELECT email, newsletter, password_hash FROM users WHERE username = ?',
      username,
    );
    expect(row).toMatchObject({ email: `${username}@example.com`, newsletter: 1 });
    expect(row?.password_hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(row?.password_hash).not.toContain('correct horse');
    // The form never carried a password.
    expect(JSON.stringify(c.seen)).not.toMatch(/password"\s*:\s*\{/);
    // Reusing the link is refused.
    expect((await fetch(link)).status).toBe(410);
    expect((await setPasswordOnPage(link)).status).toBe(410);
  });

  it('pending when the person consents but does not finish in time: no account yet; the page creates it later, once', async () => {
    const username = `erin_${tag}`;
    let link = '';
    c.script.push(
      { action: 'accept', content: { username, email: `${username}@example.com`, newsletter: false } },
      (params) => {
        link = String(params.url);
        return { action: 'accept' };
      },
    );
    const started = count(data.dir, 'users');
    const r = await callTool(c.client, 'register_user');
    expect(r.structured).toMatchObject({ status: 'pending', username, passwordSet: false });
    // A 2026-07-28 call is picked up again with its state; a 2025 one is not, and another call would
    // be another registration, finding the name held by this one: it is not asked for.
    const said = JSON.stringify(r.structured);
    if (revision === '2026-07-28') expect(said).toContain('call register_user again once they have');
    else
      expect(said).toContain(
        `Do not call register_user again for it: that starts another registration, and the name ${username} is held by this one.`,
      );
    // Nothing is an account before its password is set.
    expect(count(data.dir, 'users')).toBe(started);
    expect((await setPasswordOnPage(link)).status).toBe(200);
    expect(
      peek<{ set: number }>(
        data.dir,
        'SELECT password_hash IS NOT NULL AS "set" FROM users WHERE username = ?',
        username,
      ),
    ).toEqual([{ set: 1 }]);
    expect((await setPasswordOnPage(link)).status).toBe(410);
  });

  it.each(['decline', 'cancel'] as const)(
    '%s at the password step: no account, the link is dead, and the same name registers on the next try',
    async (action) => {
      const username = `fay_${action}_${tag}`;
      let link = '';
      c.script.push(
        { action: 'accept', content: { username, email: `${username}@example.com`, newsletter: false } },
        (params) => {
          link = String(params.url);
          return { action };
        },
      );
      const r = await callTool(c.client, 'register_user');
      expect(r.status).toBe(action === 'decline' ? 'declined' : 'cancelled');
      expect(peek(data.dir, 'SELECT * FROM users WHERE username = ?', username)).toEqual([]);
      expect(peek(data.dir, 'SELECT * FROM registrations WHERE username = ?', username)).toEqual([]);
      expect((await fetch(link)).status).toBe(404);
      // The name is still free: the next registration with it goes through.
      c.script.push(
        { action: 'accept', content: { username, email: `${username}@example.com`, newsletter: true } },
        async (params) => {
          expect((await setPasswordOnPage(String(params.url))).status).toBe(200);
          return { action: 'accept' };
        },
      );
      const again = await callTool(c.client, 'register_user');
      expect(again.structured).toMatchObject({ status: 'done', username, passwordSet: true });
      expect(peek(data.dir, 'SELECT newsletter FROM users WHERE username = ?', username)).toEqual([{ newsletter: 1 }]);
    },
  );

  it('declined at the form: nothing is written at all', async () => {
    const before = [count(data.dir, 'users'), count(data.dir, 'registrations')];
    c.script.push({ action: 'decline' });
    const r = await callTool(c.client, 'register_user');
    expect(r.status).toBe('declined');
    expect([count(data.dir, 'users'), count(data.dir, 'registrations')]).toEqual(before);
  });
});

describe('register_user when nobody finishes', () => {
  it('a password question that times out (2025-11-25): no account, the link is dead', async () => {
    const slow = tempDataDir();
    // The bound is every question's: the form's answer, scripted, must come within it too — 2 s,
    // not a few hundred ms a loaded machine's round trip can take (the link then never sent).
    const served = await serveHttp({ dataDir: slow.dir, locale: 'en', port: 0, timeoutMs: 2_000 });
    try {
      const c = await httpClient(served.url, served.newTokens[0]?.token ?? '', { revision: '2025-11-25' });
      let link = '';
      c.script.push(
        { action: 'accept', content: { username: 'hana', email: 'hana@example.com', newsletter: false } },
        (params) => {
          link = String(params.url);
          return 'hang';
        },
      );
      const r = await callTool(c.client, 'register_user');
      expect(r.status).toBe('timeout');
      expect(peek(slow.dir, "SELECT * FROM users WHERE username = 'hana'")).toEqual([]);
      expect((await fetch(link)).status).toBe(404);
      await c.close();
    } finally {
      await served.close();
      slow.remove();
    }
  });

  it('a call cancelled while the person is on the page (2025-11-25): no account, the link is dead', async () => {
    const patient = tempDataDir();
    const served = await serveHttp({ dataDir: patient.dir, locale: 'en', port: 0, urlWaitMs: 60_000 });
    try {
      const c = await httpClient(served.url, served.newTokens[0]?.token ?? '', { revision: '2025-11-25' });
      let link = '';
      c.script.push(
        { action: 'accept', content: { username: 'kato', email: 'kato@example.com', newsletter: false } },
        (params) => {
          link = String(params.url);
          return { action: 'accept' };
        },
      );
      const abort = new AbortController();
      const call = c.client
        .callTool({ name: 'register_user', arguments: {} }, { signal: abort.signal })
        .catch((e: unknown) => e);
      await expect.poll(async () => link !== '' && (await fetch(link)).status).toBe(200);
      abort.abort();
      expect(await call).toBeInstanceOf(Error);
      await expect.poll(async () => (await fetch(link)).status).toBe(404);
      expect(peek(patient.dir, "SELECT * FROM users WHERE username = 'kato'")).toEqual([]);
      await c.close();
    } finally {
      await served.close();
      patient.remove();
    }
  });

  it('an abandoned page: no account; once expired its link says so', async () => {
    const link = await freshLink('ivan');
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(`${data.dir}/opsdesk.db`);
    db.prepare("UPDATE registrations SET expires_at = 0 WHERE username = 'ivan'").run();
    db.close();
    expect((await fetch(link)).status).toBe(410);
    expect(peek(data.dir, "SELECT * FROM users WHERE username = 'ivan'")).toEqual([]);
  });

  it('two registrations racing for one name: the first page wins, the second creates nothing and says why', async () => {
    const [first, second] = [await freshLink('jade'), await freshLink('jade')];
    expect(first).not.toBe(second);
    expect((await setPasswordOnPage(first)).status).toBe(200);
    const late = await setPasswordOnPage(second);
    expect(late.status).toBe(409);
    expect(await late.text()).toContain('was taken while this page was open');
    expect(peek(data.dir, "SELECT COUNT(*) AS n FROM users WHERE username = 'jade'")).toEqual([{ n: 1 }]);
  });
});

/** A live link: the person consented to open the page, and has not finished there (pending). */
async function freshLink(username: string): Promise<string> {
  const c = await httpClient(server.url, tokenOf('alice'), { revision: '2025-11-25' });
  let link = '';
  c.script.push(
    { action: 'accept', content: { username, email: `${username}@example.com`, newsletter: false } },
    (params) => {
      link = String(params.url);
      return { action: 'accept' };
    },
  );
  const r = await callTool(c.client, 'register_user');
  expect(r.status).toBe('pending');
  await c.close();
  return link;
}

describe('the password page', () => {
  it('refuses a POST without the CSRF cookie and field, or from another origin', async () => {
    const link = await freshLink('frank');
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const body = new URLSearchParams({ csrf: 'x', password: 'long enough pw', confirm: 'long enough pw' });
    expect((await fetch(link, { method: 'POST', headers: form, body })).status).toBe(403);
    const page = await fetch(link);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(page.headers.get('set-cookie')).toContain('SameSite=Strict');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // Under `no-referrer` a browser's form POST carries `Origin: null`, which is refused below.
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    const good = new URLSearchParams({ csrf, password: 'long enough pw', confirm: 'long enough pw' });
    expect(
      (await fetch(link, { method: 'POST', headers: { ...form, cookie, origin: 'https://evil.example' }, body: good }))
        .status,
    ).toBe(403);
    expect(
      (await fetch(link, { method: 'POST', headers: { ...form, cookie, origin: 'null' }, body: good })).status,
    ).toBe(403);
    expect((await fetch(link, { method: 'POST', headers: { ...form }, body: good })).status).toBe(403);
    expect(
      (await fetch(link, { method: 'POST', headers: { 'content-type': 'text/plain', cookie }, body: good.toString() }))
        .status,
    ).toBe(415);
    // Too short and mismatched passwords are sent back to the form, and the link stays usable.
    const short = await fetch(link, {
      method: 'POST',
      headers: { ...form, cookie },
      body: new URLSearchParams({ csrf, password: 'short', confirm: 'short' }),
    });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain('at least 10 characters');
    const ok = await fetch(link, { method: 'POST', headers: { ...form, cookie }, body: good });
    expect(ok.status).toBe(200);
  });

  it('answers 404 for unknown links and 410 for expired ones', async () => {
    expect((await fetch(`${server.url.replace('/mcp', '')}/register/${'A'.repeat(43)}`)).status).toBe(404);
    expect((await fetch(`${server.url.replace('/mcp', '')}/register/short`)).status).toBe(404);
    const link = await freshLink('gina');
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(`${data.dir}/opsdesk.db`);
    db.prepare("UPDATE registrations SET expires_at = 0 WHERE username = 'gina'").run();
    db.close();
    expect((await fetch(link)).status).toBe(410);
    expect(await (await fetch(link)).text()).toContain('expired');
  });
});

/**
 * A 2026-07-28 call is stateless on the server: a client can answer the same round twice, with
 * different answers, and carry on with both results. For register_user that is one call (one
 * context id) with two registrations. The call must end with at most one account, the page must
 * answer every link with a page (never a 500 carrying SQLite's words), and no result may claim an
 * account that was not made. Raw JSON-RPC rounds, the pages over real HTTP; the server's short
 * wait for the page on a consent matters here (the fork whose link was withdrawn never completes).
 */
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
      const token = await server.ownerToken(`frank${one}`);
      const call: RoundParams = { name: 'register_user', arguments: {} };
      const { requestState } = pendingOf(await wireRound(server.url, call, as(token)));
      const fork = (username: string) =>
        wireRound(
          server.url,
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
        data.dir,
        'SELECT username FROM users WHERE username IN (?, ?)',
        one,
        two,
      );
      expect(made).toHaveLength(1);

      // Each fork's last round: consent given. Only the fork whose name became the account says so.
      const results = [];
      for (const [i, round] of [first, second].entries()) {
        const last = await wireRound(
          server.url,
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

describe('register_user when its name is taken on the page', () => {
  it('the page finds the name taken meanwhile: the call says so (rejected), not that the page still works', async () => {
    // Another call's page (still open) is used first, while this call's question is open.
    const earlier = await freshLink('lena');
    const c = await httpClient(server.url, tokenOf('alice'), { revision: '2025-11-25' });
    try {
      c.script.push(
        { action: 'accept', content: { username: 'lena', email: 'lena2@example.com', newsletter: false } },
        async (params) => {
          expect((await setPasswordOnPage(earlier)).status).toBe(200);
          expect((await setPasswordOnPage(String(params.url))).status).toBe(409);
          return { action: 'accept' };
        },
      );
      const r = await callTool(c.client, 'register_user');
      expect(r.structured).toMatchObject({ status: 'rejected', username: 'lena', passwordSet: false });
      expect(r.text).toContain('The username "lena" was taken while the page was open');
      expect(peek(data.dir, "SELECT email FROM users WHERE username = 'lena'")).toEqual([
        { email: 'lena@example.com' },
      ]);
    } finally {
      await c.close();
    }
  });
});

describe('the password page reads only what a browser sends it', () => {
  const post = async (link: string, contentType: string, body: (csrf: string) => BodyInit) => {
    const page = await fetch(link);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    return fetch(link, { method: 'POST', headers: { 'content-type': contentType, cookie }, body: body(csrf) });
  };
  const form = 'application/x-www-form-urlencoded';
  const hashOf = (username: string) =>
    peek<{ password_hash: string }>(data.dir, 'SELECT password_hash FROM users WHERE username = ?', username);

  it('a body that is not UTF-8 (bytes or escapes) is refused, not set as a password with U+FFFD for what was sent', async () => {
    const link = await freshLink('nora');
    // ISO-8859-1 'pässwörd' as escapes, and as raw bytes: both would decode to U+FFFD in its place.
    const latin1 = '%70%E4%73%73%77%F6%72%64%31%32';
    const escaped = await post(link, form, (csrf) => `csrf=${csrf}&password=${latin1}&confirm=${latin1}`);
    expect(escaped.status).toBe(400);
    const bytes = await post(link, form, (csrf) =>
      Buffer.concat([
        Buffer.from(`csrf=${csrf}&password=`),
        Buffer.from('pässwörd12', 'latin1'),
        Buffer.from('&confirm='),
        Buffer.from('pässwörd12', 'latin1'),
      ]),
    );
    expect(bytes.status).toBe(400);
    expect(hashOf('nora')).toEqual([]);
    // The link still works for a body the page can read.
    expect((await setPasswordOnPage(link, 'pässwörd12 ok')).status).toBe(200);
    expect(hashOf('nora')).toHaveLength(1);
  });

  it('the form body is known by its whole media type, in any case', async () => {
    const link = await freshLink('opal');
    const body = (csrf: string) => new URLSearchParams({ csrf, password: 'long enough pw', confirm: 'long enough pw' });
    expect((await post(link, `${form}-not`, body)).status).toBe(415);
    expect(hashOf('opal')).toEqual([]);
    expect((await post(link, 'Application/X-WWW-Form-URLEncoded; charset=UTF-8', body)).status).toBe(200);
    expect(hashOf('opal')).toHaveLength(1);
  });
});

describe('register_user: one call answered twice, the name differing only in case (2026-07-28)', () => {
  it('the account holds the spelling of the answer whose page made it, and only that answer reports it', async () => {
    const token = await server.ownerToken('frankcase');
    const call: RoundParams = { name: 'register_user', arguments: {} };
    const { requestState } = pendingOf(await wireRound(server.url, call, as(token)));
    const fork = (username: string) =>
      wireRound(
        server.url,
        {
          ...call,
          inputResponses: { account: accept({ username, email: 'quinn@example.com', newsletter: false }) },
          requestState,
        },
        as(token),
      );
    const first = await fork('Quinn');
    const second = await fork('quinn');
    // The later answer is the call's registration: its page names it as it was answered.
    const page = await fetch(linkOf(second));
    expect(await page.text()).toContain('<b>quinn</b>');
    expect((await setPasswordOnPage(linkOf(second))).status).toBe(200);
    expect(peek(data.dir, "SELECT username FROM users WHERE username = 'quinn'")).toEqual([{ username: 'quinn' }]);
    const last = (round: Awaited<ReturnType<typeof fork>>) =>
      wireRound(
        server.url,
        { ...call, inputResponses: { password: { action: 'accept' } }, requestState: pendingOf(round).requestState },
        as(token),
      );
    expect((await last(second)).result?.structuredContent).toMatchObject({ status: 'done', username: 'quinn' });
    expect((await last(first)).result?.structuredContent).not.toMatchObject({ status: 'done' });
  });
});

describe('the password page of an answer whose call already made its account (2026-07-28)', () => {
  it('says which account the call made and that this page made none, not that the link was used', async () => {
    const token = await server.ownerToken('frankother');
    const call: RoundParams = { name: 'register_user', arguments: {} };
    const { requestState } = pendingOf(await wireRound(server.url, call, as(token)));
    const fork = (username: string) =>
      wireRound(
        server.url,
        {
          ...call,
          inputResponses: { account: accept({ username, email: `${username}@example.com`, newsletter: false }) },
          requestState,
        },
        as(token),
      );
    expect((await setPasswordOnPage(linkOf(await fork('rhea')))).status).toBe(200);
    const other = await setPasswordOnPage(linkOf(await fork('rhea_two')));
    expect(other.status).toBe(409);
    const text = await other.text();
    expect(text).toContain('This registration already created the account <b>rhea</b>');
    expect(text).not.toContain('already been used');
    expect(peek(data.dir, "SELECT username FROM users WHERE username LIKE 'rhea%'")).toEqual([{ username: 'rhea' }]);
  });
});

describe('a password submitted as its call is declined', () => {
  it('the page the submit gets says the link is no longer valid, not that it was used', async () => {
    // The page's handler is driven directly so that its request's body arrives when the test says:
    // after the page looked the link up, before it spends it (the time the password is hashed).
    const c = await memoryClient(data.dir, { user: 'alice' });
    try {
      let submitting: Promise<Response> | undefined;
      let release = () => {};
      c.script.push(
        { action: 'accept', content: { username: 'sol', email: 'sol@example.com', newsletter: false } },
        async (params) => {
          const at = `http://127.0.0.1:9${new URL(String(params.url)).pathname}`;
          const page = (await c.opsdesk.links.handle(new Request(at))) as Response;
          const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
          const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
          const body = new URLSearchParams({ csrf, password: 'long enough pw', confirm: 'long enough pw' }).toString();
          let reading = () => {};
          const read = new Promise<void>((resolve) => {
            reading = resolve;
          });
          const go = new Promise<void>((resolve) => {
            release = resolve;
          });
          const stream = new ReadableStream<Uint8Array>({
            async pull(controller) {
              reading();
              await go;
              controller.enqueue(new TextEncoder().encode(body));
              controller.close();
            },
          });
          submitting = c.opsdesk.links.handle(
            new Request(at, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: 'http://127.0.0.1:9' },
              body: stream,
              duplex: 'half',
            } as RequestInit),
          ) as Promise<Response>;
          await read;
          return { action: 'decline' };
        },
      );
      const r = await callTool(c.client, 'register_user');
      expect(r.status, r.text).toBe('declined');
      release();
      const late = (await submitting) as Response;
      expect(late.status).toBe(404);
      expect(await late.text()).toContain('This link is not valid.');
      expect(peek(data.dir, "SELECT * FROM users WHERE username = 'sol'")).toEqual([]);
    } finally {
      await c.close();
    }
  });
});

describe('the password page when the account cannot be written', () => {
  it('says on a page that nothing was created and the link still works, not a JSON-RPC error', async () => {
    const link = await freshLink('tove');
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(`${data.dir}/opsdesk.db`);
    db.exec(
      "CREATE TRIGGER refuse_tove BEFORE INSERT ON users WHEN NEW.username = 'tove' BEGIN SELECT RAISE(ABORT, 'disk says no'); END",
    );
    try {
      const failed = await setPasswordOnPage(link);
      expect(failed.status).toBe(500);
      expect(failed.headers.get('content-type')).toContain('text/html');
      const text = await failed.text();
      expect(text).toContain('No account was created');
      expect(text).not.toContain('disk says no');
    } finally {
      db.exec('DROP TRIGGER refuse_tove');
      db.close();
    }
    expect((await setPasswordOnPage(link)).status).toBe(200);
  });
});
