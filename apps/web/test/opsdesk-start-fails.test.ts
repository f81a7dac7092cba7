/**
 * The web app's opsdesk whose start fails after it listened is closed, and tried again by the
 * next chat. Was: a database refusing the chats' tokens (another process holding its write lock
 * past the wait, a full disk) left the started opsdesk running, unreachable: every chat after
 * started another — one more listening port, database connection and shop per chat, for the life
 * of the Next.js process. The database refuses here through a trigger of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-opsdesk-start-fails-'));
process.env.ELICITKIT_DATA = data;
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL', 'ELICITKIT_SERVERS'])
  delete process.env[name];

const { opsdeskHost, stopOpsdesk } = await import('../lib/opsdesk');
afterAll(async () => {
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

/**
 * Listening servers of this process (opsdesk's port among them), once those closed have gone: a
 * closed server's port is let go at once, its handle at the next turn of the event loop.
 */
async function listening(): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  return process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length;
}

/** Runs `sql` on the web app's opsdesk database, as another process would. */
function onDatabase(sql: string): void {
  const db = new Database(join(data, 'opsdesk.db'));
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

describe("the web app's opsdesk: a start that fails after it listened", () => {
  it('each is closed, and the next start after the database takes tokens again serves', async () => {
    // Made once, so the database is there to refuse.
    await opsdeskHost();
    await stopOpsdesk();
    const before = await listening();
    onDatabase(
      "CREATE TRIGGER refuse_tokens BEFORE INSERT ON api_tokens BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    for (let chat = 0; chat < 3; chat++) await expect(opsdeskHost()).rejects.toThrow('database or disk is full');
    expect(await listening()).toBe(before);
    onDatabase('DROP TRIGGER refuse_tokens');
    const host = await opsdeskHost();
    expect(host.token('alice')).toMatch(/^ek_/);
    expect(await listening()).toBe(before + 1);
  }, 60_000);
});
