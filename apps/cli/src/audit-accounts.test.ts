/**
 * `elicitkit audit` says whose account made each call, not only the name it had then: a name is
 * freed when its account is removed and taken by the next one made under it, so two different
 * people read as one `carol` when the trail showed the name alone. Each call's line names the
 * account (`carol (#3)`), a name that could be read as part of that mark is quoted, an identity
 * that names no account says so, and one whose account was gone before the record was written
 * shows the id alone. Calls made over real HTTP with each account's bearer token.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueToken, serveHttp } from '@elicitkit/opsdesk';
import type { AuditEvent } from '@elicitkit/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { flushAudit, sqliteAudit } from '../../opsdesk/src/audit.js';
import { openDatabase } from '../../opsdesk/src/db/open.js';
import { main } from './main.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function audit(dir: string): Promise<string[]> {
  const out: string[] = [];
  expect(await main(['audit', '--data', dir], { out: (s) => out.push(s), err: () => {} })).toBe(0);
  return out.join('\n').split('\n');
}

/** One deploy_service call over HTTP with `token`, refused before any question (no such service): the call's one record. */
async function refusedCall(url: string, token: string): Promise<void> {
  const client = new Client({ name: 'audit-accounts', version: '1.0.0' });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const result = await client.callTool({ name: 'deploy_service', arguments: { service: 'no-such-service' } });
    expect(result.structuredContent).toMatchObject({ status: 'rejected' });
  } finally {
    await client.close();
  }
}

it('two accounts that had one name read as two: each call names its account', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ek-audit-accounts-'));
  dirs.push(dir);
  const server = await serveHttp({ dataDir: dir, locale: 'en', port: 0 });
  const ids: number[] = [];
  const idOf = (name: string) => {
    const db = new BetterSqlite3(join(dir, 'opsdesk.db'));
    try {
      return db.prepare('SELECT id FROM users WHERE username = ?').pluck().get(name) as number;
    } finally {
      db.close();
    }
  };
  try {
    await refusedCall(server.url, await issueToken(server.opsdesk.store, 'carol'));
    ids.push(idOf('carol'));
    const db = new BetterSqlite3(join(dir, 'opsdesk.db'));
    db.exec("DELETE FROM users WHERE username = 'carol'");
    db.close();
    await refusedCall(server.url, await issueToken(server.opsdesk.store, 'carol'));
    ids.push(idOf('carol'));
    // A host's name that holds what the mark looks like: quoted, so the mark read is the real one.
    await refusedCall(server.url, await issueToken(server.opsdesk.store, 'dave (#1)'));
    ids.push(idOf('dave (#1)'));
  } finally {
    await server.close();
  }
  expect(ids[0]).not.toBe(ids[1]);
  const calls = (await audit(dir)).filter((l) => l.startsWith('call '));
  expect(calls).toHaveLength(3);
  expect(calls[0]).toMatch(new RegExp(`^call \\S+ by carol \\(#${ids[0]}\\)$`));
  expect(calls[1]).toMatch(new RegExp(`^call \\S+ by carol \\(#${ids[1]}\\)$`));
  expect(calls[2]).toMatch(new RegExp(`^call \\S+ by "dave \\(#1\\)" \\(#${ids[2]}\\)$`));
});

it('an identity that names no account, and an account gone before its record was written, say so', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ek-audit-accounts-'));
  dirs.push(dir);
  const db = openDatabase(dir);
  const sink = sqliteAudit(db);
  const asked = (contextId: string, user: string) =>
    sink({
      type: 'request',
      contextId,
      tool: 'deploy_service',
      key: 'env',
      user,
      mode: 'form',
      revision: '2025-11-25',
      message: 'which env?',
      fields: ['env'],
      delivered: true,
      at: 1_700_000_000_000,
    } as AuditEvent);
  asked('embedder-call', 'user-call-3');
  // The kit's identity of an account no longer there (removed while the call ran): no name to read.
  asked('gone-call', '999');
  flushAudit(db);
  db.close();
  const calls = (await audit(dir)).filter((l) => l.startsWith('call '));
  expect(calls).toEqual(
    expect.arrayContaining([
      'call embedder-call by user-call-3 (no account)',
      'call gone-call by removed account #999',
    ]),
  );
});
