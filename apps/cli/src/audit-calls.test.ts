/**
 * `elicitkit audit --limit N` shows the last N tool calls, each whole (its request, response and
 * validation together, with its user), never the last N records of each kind cut apart; and with
 * no data directory given it finds the web app's `./.elicitkit`, or says everywhere it looked.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent } from '@elicitkit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { flushAudit, sqliteAudit } from '../../opsdesk/src/audit.js';
import { openDatabase } from '../../opsdesk/src/db/open.js';
import { main } from './main.js';
import { EXIT } from './usage.js';

const dirs: string[] = [];
const saved = { cwd: process.cwd(), data: process.env.ELICITKIT_DATA, xdg: process.env.XDG_DATA_HOME };
afterEach(() => {
  process.chdir(saved.cwd);
  for (const [key, value] of [
    ['ELICITKIT_DATA', saved.data],
    ['XDG_DATA_HOME', saved.xdg],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ek-audit-calls-'));
  dirs.push(dir);
  return dir;
}

/** A data directory whose trail holds `calls`, in order, each a question asked and answered. */
function trail(dir: string, calls: string[]): void {
  const db = openDatabase(dir);
  const sink = sqliteAudit(db);
  let at = 1_700_000_000_000;
  for (const call of calls) {
    const base = { contextId: call, tool: 'deploy_service', key: 'env', user: `user-${call}` };
    sink({
      ...base,
      type: 'request',
      mode: 'form',
      revision: '2025-11-25',
      message: `which env for ${call}?`,
      fields: ['env'],
      delivered: true,
      at: at++,
    } as AuditEvent);
    sink({
      ...base,
      type: 'response',
      action: 'accept',
      content: { env: 'dev' },
      elapsedMs: 5,
      at: at++,
    } as AuditEvent);
    sink({ ...base, type: 'validation', ok: true, issues: [], at: at++ } as AuditEvent);
  }
  flushAudit(db);
  db.close();
}

async function audit(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['audit', ...argv], { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('elicitkit audit --limit', () => {
  it('keeps the last N calls whole, in order, each with its user', async () => {
    const dir = temp();
    trail(dir, ['call-1', 'call-2', 'call-3']);
    const json = JSON.parse((await audit(['--data', dir, '--limit', '2', '--json'])).out) as Record<
      string,
      { context_id: string }[]
    >;
    for (const kind of ['requests', 'responses', 'validations'])
      expect(
        json[kind]?.map((r) => r.context_id),
        kind,
      ).toEqual(['call-2', 'call-3']);
    const text = (await audit(['--data', dir, '--limit', '1'])).out;
    expect(text).toContain('call call-3 by user-call-3 (no account)');
    expect(text).not.toContain('call-2');
    expect(text.split('\n').filter((l) => l.trim().length > 0)).toHaveLength(4);
  });
});

describe('elicitkit audit without --data', () => {
  it('finds the web app’s ./.elicitkit when the default directory has no data', async () => {
    const repo = temp();
    process.env.XDG_DATA_HOME = temp();
    delete process.env.ELICITKIT_DATA;
    mkdirSync(join(repo, '.elicitkit'));
    trail(join(repo, '.elicitkit'), ['web-call']);
    process.chdir(repo);
    const found = await audit([]);
    expect(found.code).toBe(EXIT.ok);
    expect(found.out).toContain('call web-call');
  });

  it('with no data anywhere, says every place it looked', async () => {
    const empty = temp();
    process.env.XDG_DATA_HOME = temp();
    delete process.env.ELICITKIT_DATA;
    process.chdir(empty);
    const missing = await audit([]);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.err).toContain(join(process.env.XDG_DATA_HOME, 'elicitkit'));
    expect(missing.err).toContain(join(empty, '.elicitkit'));
  });
});
