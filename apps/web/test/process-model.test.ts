/**
 * The web app's process model through its route handlers: one opsdesk for every chat (no process
 * per visitor), chats capped per client address, a chat closed by its page's pagehide beacon or
 * after its idle time, its open question withdrawn either way, and a chat acting as a chosen user.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { answer, ask, beacon, newBrowser, openChat, type Routes, toolOutput, turn } from './browser';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-process-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
process.env.ELICITKIT_MAX_CHATS_PER_ADDRESS = '3';
process.env.ELICITKIT_MAX_CHATS = '12';
process.env.ELICITKIT_CHAT_IDLE_MS = '60000';

const { GET: getChatInfo } = await import('../app/api/chat/info/route');
const { POST: postClose } = await import('../app/api/chat/close/route');
const { POST: postChat } = await import('../app/api/chat/route');
const { GET: getTools } = await import('../app/api/tools/route');
const { POST: postAnswer } = await import('../app/api/elicitations/[id]/route');
const { chatOf, resetState, state, sweep, switchChatUser } = await import('../lib/state');
const { chatKey } = await import('../lib/chats');
const { opsdeskHost, stopOpsdesk } = await import('../lib/opsdesk');

const routes: Routes = { getChatInfo, postChat, postAnswer, postClose };

afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

/** This process's child processes (Linux: every thread's `children`). */
function children(): string[] {
  const tasks = readdirSync('/proc/self/task');
  return tasks.flatMap((t) =>
    readFileSync(`/proc/self/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean),
  );
}

const idOf = (cookie: string) => cookie.split('=')[1] ?? '';

describe('one opsdesk per web app', () => {
  it('serves every chat from one opsdesk: no process per chat, each chat its own questions', async () => {
    const first = await newBrowser(routes, '10.0.0.1');
    expect(toolOutput(await turn(routes, first, '/list_deployments'))).toMatchObject({ output: { status: 'done' } });
    const host = await opsdeskHost();
    const before = children();
    const browsers = await Promise.all(
      ['10.0.1.1', '10.0.1.2', '10.0.1.3', '10.0.1.4'].map((a) => newBrowser(routes, a)),
    );
    const questions = await Promise.all(browsers.map((b) => ask(routes, b, '/deploy_service service=order-service')));
    expect(children()).toEqual(before);
    expect(await opsdeskHost()).toBe(host);
    expect(new Set(questions.map((q) => q.id)).size).toBe(4);
    // Each question is its own chat's: the neighbour is refused, the owner answers.
    expect((await answer(routes, browsers[1]!, questions[0]!.id, { action: 'decline' })).status).toBe(403);
    for (const [i, q] of questions.entries()) {
      expect((await answer(routes, browsers[i]!, q.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(
        200,
      );
      expect(toolOutput(await q.rest)).toMatchObject({ output: { status: 'done' } });
    }
    for (const b of [first, ...browsers]) expect((await beacon(routes, b)).status).toBe(204);
  });

  it('keeps URL mode working: the password page is served by the one opsdesk on loopback', async () => {
    const b = await newBrowser(routes, '10.0.2.1');
    const form = await ask(routes, b, '/register_user');
    const name = `web${Date.now().toString(36)}`.slice(0, 20);
    const sent = { action: 'accept', content: { username: name, email: `${name}@example.com` } };
    expect((await answer(routes, b, form.id, sent)).status).toBe(200);
    // The URL question follows in the same stream.
    const host = await opsdeskHost();
    let url: string | undefined;
    const seen = form.rest.then((all) => all);
    await expect
      .poll(async () => {
        const parts = (await state().registry.list(chatKey(idOf(b.cookie)))).filter((e) => !e.settlement);
        const prompt = (parts[0]?.data as { prompt?: { mode: string; url?: string } } | undefined)?.prompt;
        url = prompt?.mode === 'url' ? prompt.url : undefined;
        return url;
      })
      .toBeDefined();
    expect(url?.startsWith(new URL(host.url).origin)).toBe(true);
    const page = await fetch(url as string);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(name);
    expect((await beacon(routes, b)).status).toBe(204);
    expect(toolOutput(await seen)).toMatchObject({ output: { status: 'cancelled' } });
  });
});

describe('caps per client address', () => {
  it('refuses the fourth chat from one address with 429 and a clear reason; others still get theirs', async () => {
    const mine = await Promise.all([1, 2, 3].map(() => newBrowser(routes, '192.0.2.7')));
    const refused = await openChat(routes, '192.0.2.7');
    expect(refused).toBeInstanceOf(Response);
    const response = refused as Response;
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await response.json()) as { error: string }).error).toMatch(
      /Too many chats are open from your address \(at most 3\)/,
    );
    // What the client claims before the last hop is not its address.
    expect(await openChat(routes, '198.51.100.1, 192.0.2.7')).toBeInstanceOf(Response);
    expect(await openChat(routes, '::ffff:192.0.2.7')).toBeInstanceOf(Response);
    const elsewhere = await newBrowser(routes, '192.0.2.8');
    // Closing one makes room for another.
    expect((await beacon(routes, mine[0]!)).status).toBe(204);
    const again = await newBrowser(routes, '192.0.2.7');
    for (const b of [...mine.slice(1), elsewhere, again]) await beacon(routes, b);
  });

  // An IPv6 client holds a whole /64 (privacy addresses, one per connection if it likes): counted
  // by the address, each of its 2^64 addresses opened its own chats until the total cap was reached
  // and nobody else got one.
  it('counts an IPv6 client by its /64, however its addresses are written', async () => {
    const one = ['2001:db8:1:2::1', '2001:0DB8:0001:0002:0:0:0:2', '2001:db8:1:2:ffff:ffff:ffff:3'];
    const mine = [];
    for (const address of one) mine.push(await newBrowser(routes, address));
    const refused = await openChat(routes, '2001:db8:1:2:a:b:c:d');
    expect(refused, 'a fourth address of the same /64 opened a chat').toBeInstanceOf(Response);
    expect((refused as Response).status).toBe(429);
    const other = await newBrowser(routes, '2001:db8:1:3::1');
    for (const b of [...mine, other]) await beacon(routes, b);
  });

  it('caps the total too', async () => {
    const opened = [];
    for (let i = 0; i < 12; i++) opened.push(await openChat(routes, `203.0.113.${i}`));
    expect(opened.every((o) => !(o instanceof Response))).toBe(true);
    const full = (await openChat(routes, '203.0.113.200')) as Response;
    expect(full.status).toBe(429);
    expect(((await full.json()) as { error: string }).error).toMatch(/full \(12 chats are open\)/);
    for (const b of opened) if (!(b instanceof Response)) await beacon(routes, b);
  });
});

describe('closing a chat', () => {
  it('on the pagehide beacon: its question is withdrawn, its tool call ends cancelled, its cookie is dead', async () => {
    const b = await newBrowser(routes, '10.0.3.1');
    const q = await ask(routes, b, '/deploy_service service=order-service');
    expect((await beacon(routes, b)).status).toBe(204);
    const chunks = await q.rest;
    expect(chunks.filter((c) => c.type === 'data-elicitation').at(-1)).toMatchObject({
      data: { id: q.id, status: 'withdrawn' },
    });
    expect(toolOutput(chunks)).toMatchObject({ output: { status: 'cancelled' } });
    // Its own page is told the question was withdrawn; nothing else of the chat answers it.
    expect((await answer(routes, b, q.id, { action: 'decline' })).status).toBe(410);
    expect((await getTools(new Request('http://localhost/api/tools', { headers: { cookie: b.cookie } }))).status).toBe(
      401,
    );
    expect((await beacon(routes, b)).status).toBe(403);
  });

  it('only for the chat’s own page: a wrong token, another chat’s token or no cookie changes nothing', async () => {
    const b = await newBrowser(routes, '10.0.4.1');
    const other = await newBrowser(routes, '10.0.4.2');
    expect((await beacon(routes, b, 'forged')).status).toBe(403);
    expect((await beacon(routes, b, other.csrf)).status).toBe(403);
    expect((await beacon(routes, b, b.csrf, '')).status).toBe(403);
    expect((await beacon(routes, b, b.csrf, other.cookie)).status).toBe(403);
    const notJson = await postClose(
      new Request('http://localhost/api/chat/close', {
        method: 'POST',
        headers: { cookie: b.cookie, 'content-type': 'text/plain' },
        body: 'csrf',
      }),
    );
    expect(notJson.status).toBe(400);
    const q = await ask(routes, b, '/deploy_service service=search-service');
    expect((await answer(routes, b, q.id, { action: 'decline' })).status).toBe(200);
    expect(toolOutput(await q.rest)).toMatchObject({ output: { status: 'declined' } });
    await beacon(routes, b);
    await beacon(routes, other);
  });

  it('after the idle time, unless a turn is running in it', async () => {
    const idle = await newBrowser(routes, '10.0.5.1');
    const busy = await newBrowser(routes, '10.0.5.2');
    const q = await ask(routes, busy, '/deploy_service service=order-service');
    const later = Date.now() + 60_001;
    const closed = await sweep(state(), later);
    expect(closed).toContain(chatKey(idOf(idle.cookie)));
    expect(closed).not.toContain(chatKey(idOf(busy.cookie)));
    expect((await turn(routes, idle, '/list_deployments'))[0]).toEqual({ type: 'http', status: 401 });
    expect((await answer(routes, busy, q.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(200);
    expect(toolOutput(await q.rest)).toMatchObject({ output: { status: 'done' } });
    expect(await sweep(state(), Date.now() + 60_001)).toContain(chatKey(idOf(busy.cookie)));
  });
});

describe('the chat’s user on opsdesk', () => {
  it('acts as the user the chat is set to, from its next call', async () => {
    let b = await newBrowser(routes, '10.0.6.1');
    /** A change of identity, a new chat: the browser holds its cookie and token. */
    const become = async (user: 'alice' | 'bob') => {
      const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: b.cookie } }));
      const next = chat && (await switchChatUser(chat, user));
      if (!next) throw new Error('not switched');
      b = { ...b, cookie: `ek_chat=${next.id}`, csrf: next.csrf };
    };
    await become('bob');
    expect(toolOutput(await turn(routes, b, '/deploy_service service=order-service env=dev'))).toMatchObject({
      output: { status: 'rejected' },
    });
    expect(toolOutput(await turn(routes, b, '/deploy_service service=search-service env=dev'))).toMatchObject({
      output: { status: 'done' },
    });
    await become('alice');
    expect(toolOutput(await turn(routes, b, '/deploy_service service=order-service env=dev'))).toMatchObject({
      output: { status: 'done' },
    });
    await beacon(routes, b);
  });
});
