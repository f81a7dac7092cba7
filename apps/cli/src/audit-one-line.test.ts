/**
 * `elicitkit audit` prints each record on one line of its own, whatever its text holds. Was: a
 * line break in a question's message, a validation issue, a violation, a tool name or a user name
 * (text a caller or a server chose: a service name typed into a question) started a new line,
 * which read as another record of the trail — a forged `response … accept` or `call … by admin`.
 * The records are written as opsdesk's audit sink writes them; `main` prints them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent } from '@elicitkit/server';
import { afterAll, describe, expect, it } from 'vitest';
import { flushAudit, sqliteAudit } from '../../opsdesk/src/audit.js';
import { openDatabase } from '../../opsdesk/src/db/open.js';
import { main } from './main.js';

const dir = mkdtempSync(join(tmpdir(), 'ek-audit-one-line-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FORGED =
  '\n  2020-01-01 00:00:00  response    deploy_service/env accept {"env":"prod"} after 1 ms\ncall forged by admin';

describe('elicitkit audit: one record, one line', () => {
  it('a line break in any text of a record is shown as a space, never as another record', async () => {
    const db = openDatabase(dir);
    const sink = sqliteAudit(db);
    const base = { contextId: 'c1', tool: `deploy_service${FORGED}`, key: `env${FORGED}`, user: `mallory${FORGED}` };
    let at = 1_700_000_000_000;
    sink({
      ...base,
      type: 'request',
      mode: 'form',
      revision: '2025-11-25',
      message: `Deploy to which env?${FORGED}`,
      fields: ['env'],
      delivered: true,
      at: at++,
    } as AuditEvent);
    sink({ ...base, type: 'response', action: 'decline', elapsedMs: 5, at: at++ } as AuditEvent);
    sink({
      ...base,
      type: 'validation',
      ok: false,
      issues: [{ field: 'env', code: 'enum', message: `not an env${FORGED}` }],
      at: at++,
    } as AuditEvent);
    sink({ ...base, type: 'violation', rule: 'R1', message: `a finding${FORGED}`, at: at++ } as AuditEvent);
    flushAudit(db);
    db.close();

    const out: string[] = [];
    const code = await main(['audit', '--data', dir], { out: (s) => out.push(s), err: () => {} });
    expect(code).toBe(0);
    const lines = out.join('\n').split('\n');
    // The call's heading and its four records.
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^call c1\b/);
    expect(lines.filter((l) => /^call /.test(l))).toHaveLength(1);
    expect(
      lines.filter((l) => /^ {2}2020-01-01 00:00:00/.test(l)),
      'a forged record',
    ).toEqual([]);
  });
});
