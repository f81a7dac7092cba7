/**
 * The audit page showed every record of opsdesk's trail to whoever opened it: every question asked
 * of anyone, and what each person typed. Now what it shows is bound to the identity the browser's
 * chat acts as (found by its cookie): an opsdesk owner sees everyone's records, alice and bob only
 * those of their own calls, a browser without an open chat nothing. Real routes, the embedded
 * opsdesk, its real audit database, read by `auditFor` as the page reads it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { adoptChat } from './browser';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-audit-access-'));
process.env.ELICITKIT_DATA = data;
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL', 'ELICITKIT_SERVERS'])
  delete process.env[name];

const { newBrowser, ask, answer } = await import('./chat-client');
const { POST: postIdentity } = await import('../app/api/chat/identity/route');
const { POST: postClose } = await import('../app/api/chat/close/route');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');
const { auditFor, auditTrail } = await import('../lib/audit');
type AuditTrail = Awaited<ReturnType<typeof auditTrail>>;

afterAll(async () => {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

type Browser = Awaited<ReturnType<typeof newBrowser>>;

async function as(user: 'alice' | 'bob' | null): Promise<Browser> {
  const b = await newBrowser();
  const chosen = await adoptChat(
    b,
    await postIdentity(
      new Request('http://localhost/api/chat/identity', {
        method: 'POST',
        headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ user }),
      }),
    ),
  );
  expect(chosen.status).toBe(200);
  return b;
}

/** A confirmation asked and answered (wrongly: nothing is deleted); `marker` is in the statement the question quotes. */
async function answered(b: Browser, marker: string): Promise<void> {
  const q = await ask(b, `/execute_sql sql="DELETE FROM order_items WHERE '${marker}' <> ''"`);
  const sent = { action: 'accept', content: { understood: true, typedTableName: 'not-the-table' } };
  expect((await answer(b, q.id, sent)).status).toBe(200);
  await q.rest;
}

const page = (cookie: string | undefined, url = 'http://localhost/audit', headers: Record<string, string> = {}) =>
  auditFor(new Request(url, { headers: cookie === undefined ? headers : { cookie, ...headers } }));

/** Every record of every kind in a trail. */
const records = (trail: AuditTrail): Record<string, unknown>[] => (trail ? Object.values(trail).flat() : []);

describe('the audit page shows what the chat’s user may see', () => {
  it('alice and bob each see their own calls only; the local owner sees everyone’s', async () => {
    const alice = await as('alice');
    const bob = await as('bob');
    const owner = await as(null);
    await answered(alice, 'alice-private-7f3');
    await answered(bob, 'bob-private-9c1');
    await expect
      .poll(async () => records(await auditTrail()).filter((r) => r.tool === 'execute_sql' && r.username).length)
      .toBeGreaterThanOrEqual(6);

    for (const [b, user, own, other] of [
      [alice, 'alice', 'alice-private-7f3', 'bob-private-9c1'],
      [bob, 'bob', 'bob-private-9c1', 'alice-private-7f3'],
    ] as const) {
      const seen = await page(b.cookie);
      expect(seen).toMatchObject({ viewer: user, everyone: false });
      const rows = records(seen.viewer ? seen.trail : undefined);
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.username))).toEqual(new Set([user]));
      expect(JSON.stringify(rows)).toContain(own);
      expect(JSON.stringify(rows)).not.toContain(other);
    }

    const all = await page(owner.cookie);
    expect(all).toMatchObject({ viewer: 'owner', everyone: true });
    const text = JSON.stringify(all.viewer ? all.trail : undefined);
    expect(text).toContain('alice-private-7f3');
    expect(text).toContain('bob-private-9c1');
  });

  it('a newcomer under a removed account’s name sees none of its records', async () => {
    const carol = await as('alice');
    await answered(carol, 'alice-before-removal-5e2');
    await expect.poll(async () => JSON.stringify(await auditTrail())).toContain('alice-before-removal-5e2');
    // alice's account removed and the name registered again, by someone else.
    const db = new BetterSqlite3(join(data, 'opsdesk.db'));
    try {
      db.prepare("DELETE FROM users WHERE username = 'alice'").run();
      db.prepare(
        "INSERT INTO users (username, role, created_at) VALUES ('alice', 'member', '2026-12-05T00:00:00Z')",
      ).run();
    } finally {
      db.close();
    }
    const seen = await page(carol.cookie);
    expect(seen).toMatchObject({ viewer: 'alice', everyone: false });
    const text = JSON.stringify(seen.viewer ? seen.trail : undefined);
    expect(text).not.toContain('alice-before-removal-5e2');
    expect(text).not.toContain('alice-private-7f3');
    // The owner still sees them, with the name they were made under.
    expect(JSON.stringify(await auditTrail())).toContain('alice-before-removal-5e2');
  });

  it('what the request says of itself changes nothing: bob stays bob', async () => {
    const bob = await as('bob');
    await answered(bob, 'bob-again-41d');
    const claims = { 'x-elicitkit-user': 'owner', 'x-forwarded-user': 'owner', authorization: 'Bearer owner' };
    const seen = await page(bob.cookie, 'http://localhost/audit?user=owner&everyone=1', claims);
    expect(seen).toMatchObject({ viewer: 'bob', everyone: false });
    expect(JSON.stringify(seen.viewer ? seen.trail : undefined)).not.toContain('alice-private-7f3');
  });

  it('shows nothing without an open chat: no cookie, a made-up one, an ended chat, one tossed in over https', async () => {
    const owner = await as(null);
    expect(await page(undefined)).toEqual({ viewer: undefined });
    expect(await page('ek_chat=made-up-by-someone')).toEqual({ viewer: undefined });
    // Over https only the __Host- cookie names a chat: the owner's id set under the plain name is not it.
    expect(await page(owner.cookie, 'https://chat.example.com/audit')).toEqual({ viewer: undefined });

    const ended = await as(null);
    const closed = await postClose(
      new Request('http://localhost/api/chat/close', {
        method: 'POST',
        headers: { cookie: ended.cookie, 'content-type': 'text/plain' },
        body: JSON.stringify({ csrf: ended.csrf, page: ended.page }),
      }),
    );
    expect(closed.status).toBe(204);
    expect(await page(ended.cookie)).toEqual({ viewer: undefined });
  });
});
