import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, nodeArgs, tempDataDir } from '../../../opsdesk/test/harness.js';
import { doctorJson } from '../../test/doctor-harness.js';
import { OPSDESK_FIXTURES } from './fixtures/opsdesk.js';

const data = tempDataDir();
afterAll(() => data.remove());

describe('doctor on the real opsdesk: every message in words the person knows or gave', () => {
  it('finds nothing over stdio, run as any user would run it', async () => {
    // The built-in fixtures, as a user's file: sync_file's case prepares data, which doctor does
    // only on its own server, so over stdio it is skipped (the next test reaches it).
    const fixtures = join(data.dir, 'fixtures.json');
    writeFileSync(fixtures, JSON.stringify(OPSDESK_FIXTURES));
    // A server doctor did not start is never throw-away: the data here is, so destructive tools may be accepted.
    const serve = [process.execPath, ...nodeArgs(CLI, 'serve', '--stdio', '--data', data.dir, '--lang', 'en')];
    const { report } = await doctorJson(['--fixtures', fixtures, '--allow-destructive', '--yes', '--', ...serve]);
    expect(report.server?.name).toBe('opsdesk');
    expect(report.revisions.every((r) => r.served)).toBe(true);
    // The execute_sql confirmation shows the table from the caller's own SQL: it must be reached to count.
    const questions = report.tools.flatMap((t) => t.questions.map((q) => `${t.name} ${q.key}`));
    expect(questions).toContain('execute_sql form: typedTableName, understood');
    expect(report.findings.map((f) => `${f.tool} ${f.rule} ${f.severity}: ${f.message}`)).toEqual([]);
  });

  it("finds nothing in the sync conflict either, which only doctor's own opsdesk can set up", async () => {
    const { report } = await doctorJson(['opsdesk', '--tools', 'sync_file']);
    expect(report.tools.flatMap((t) => t.questions.map((q) => `${t.name} ${q.key}`))).toEqual([
      'sync_file form: resolution',
    ]);
    expect(report.findings.map((f) => `${f.tool} ${f.rule} ${f.severity}: ${f.message}`)).toEqual([]);
  });
});
