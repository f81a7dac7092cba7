import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, tempDataDir } from '../../test/harness.js';
import { calendarDate } from './weekly-report.js';

let data: ReturnType<typeof tempDataDir>;
let alice: Conn;
let bob: Conn;
beforeAll(async () => {
  data = tempDataDir();
  alice = await memoryClient(data.dir, { user: 'alice' });
  bob = await memoryClient(data.dir, { user: 'bob' });
});
afterAll(async () => {
  await alice.close();
  await bob.close();
  data.remove();
});

const report = async (c: Conn, args: Record<string, unknown>, answer?: Record<string, unknown>) => {
  c.script.splice(0, c.script.length, ...(answer ? [{ action: 'accept' as const, content: answer }] : []));
  const asked = c.seen.length;
  const r = await callTool(c.client, 'weekly_report', args);
  return {
    ...r,
    question: c.seen[asked] as
      | { message: string; requestedSchema: { properties: Record<string, unknown>; required?: string[] } }
      | undefined,
  };
};

describe('weekly_report', () => {
  it('asks every missing field in one form, projects limited to what the user may see', async () => {
    const r = await report(bob, {}, { project: 'search-service', from: '2026-11-02', to: '2026-11-15' });
    expect(Object.keys(r.question?.requestedSchema.properties ?? {})).toEqual(['project', 'from', 'to']);
    expect(r.question?.requestedSchema.properties.project).toMatchObject({ oneOf: [{ const: 'search-service' }] });
    expect(r.status).toBe('done');
    expect(r.text).toContain('Weekly report for search-service, 2026-11-02 to 2026-11-15: 1 deployment.');
  });

  it('asks only for what is missing', async () => {
    const r = await report(alice, { project: 'order-service' }, { from: '2026-11-01', to: '2026-11-07' });
    expect(Object.keys(r.question?.requestedSchema.properties ?? {})).toEqual(['from', 'to']);
    expect(r.question?.message).toBe(
      'To build the weekly report, choose the start date, the end date. The range may span at most 31 days.',
    );
    expect(r.structured?.byEnv).toEqual({ dev: 1, staging: 1, prod: 1 });
  });

  it('asks nothing when everything is given', async () => {
    const r = await report(alice, { project: 'payment-service', from: '2026-11-01', to: '2026-11-30' });
    expect(r.question).toBeUndefined();
    expect(r.structured?.deployments).toHaveLength(2);
  });

  it.each([
    [
      '2026-02-30 in the answer',
      {},
      { project: 'order-service', from: '2026-02-30', to: '2026-03-02' },
      /real calendar date/,
    ],
    [
      'from after to',
      {},
      { project: 'order-service', from: '2026-03-10', to: '2026-03-01' },
      /starts \(2026-03-10\) after it ends \(2026-03-01\)/,
    ],
    [
      'a 32-day span',
      {},
      { project: 'order-service', from: '2026-01-01', to: '2026-02-01' },
      /spans 32 days; at most 31/,
    ],
  ])('answer with %s: invalid, with the reason, and no second question', async (_label, args, answer, reason) => {
    const r = await report(alice, args, answer);
    expect(r.status).toBe('invalid');
    expect(r.text).toMatch(reason);
    expect(alice.script).toEqual([]);
  });

  it('31 days is the limit, inclusive', async () => {
    const r = await report(alice, { project: 'order-service', from: '2026-01-01', to: '2026-01-31' });
    expect(r.status).toBe('done');
  });

  it.each([
    [
      '2026-02-30 given directly',
      { project: 'order-service', from: '2026-02-30', to: '2026-03-01' },
      /"2026-02-30" is not a real calendar date/,
    ],
    [
      'a project the user may not see',
      { project: 'order-service', from: '2026-11-01', to: '2026-11-02' },
      /There is no project called "order-service" that you may see reports for/,
    ],
    [
      'an unknown project',
      { project: 'billing', from: '2026-11-01', to: '2026-11-02' },
      /There is no project called "billing" that you may see reports for/,
    ],
  ])('arguments with %s: invalid before anything is asked', async (_label, args, reason) => {
    const r = await report(bob, args);
    expect(r.status).toBe('invalid');
    expect(r.text).toMatch(reason);
    // It says the arguments were refused, not that an answer to a question was.
    expect(r.text).toMatch(/^The arguments of this call were not accepted, so nothing was asked/);
    expect(r.structured?.question).toBeUndefined();
    expect(r.question).toBeUndefined();
  });

  it('knows real calendar dates', () => {
    expect(calendarDate('2024-02-29')).toBeDefined();
    expect(calendarDate('2026-02-29')).toBeUndefined();
    expect(calendarDate('2026-13-01')).toBeUndefined();
    expect(calendarDate('2026-1-01')).toBeUndefined();
  });

  it('knows the dates of years 0000–0099 too, as the years they are (not 1900–1999)', async () => {
    expect(calendarDate('0050-01-01')).toBe((calendarDate('0050-01-31') as number) - 30 * 86_400_000);
    expect(calendarDate('0000-02-29')).toBeDefined();
    expect(calendarDate('0001-02-29')).toBeUndefined();
    expect((calendarDate('0100-01-01') as number) - (calendarDate('0099-12-31') as number)).toBe(86_400_000);
    const r = await report(alice, { project: 'order-service', from: '0099-12-01', to: '0099-12-31' });
    expect(r.status).toBe('done');
    expect(r.text).toBe('Weekly report for order-service, 0099-12-01 to 0099-12-31: 0 deployments.');
  });
});

describe('weekly_report shows what the database holds on one line each', () => {
  it('a deployment whose text holds line breaks or bidi controls reads as one line, the controls visible', async () => {
    // Another writer on the database (a script, an older opsdesk, a replica) put it there.
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(`${data.dir}/opsdesk.db`);
    db.prepare(
      'INSERT INTO deployments (service, env, version, ticket, deployed_by, created_at) VALUES (?, ?, ?, NULL, ?, ?)',
    ).run(
      'search-service',
      'dev',
      'v1\n- 2026-10-05 10:00 v9.9.9 → prod (REL-1) by alice',
      'mallory\u202eecila',
      // 09:00 on 5 October where the server is: a report's days and times are the server's.
      new Date(2026, 9, 5, 9, 0).toISOString(),
    );
    db.close();
    const r = await report(bob, { project: 'search-service', from: '2026-10-05', to: '2026-10-05' });
    expect(r.status).toBe('done');
    const lines = (r.text ?? '').split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(
      '- 2026-10-05 09:00 v1 - 2026-10-05 10:00 v9.9.9 → prod (REL-1) by alice → dev by mallory\uFFFDecila (no account)',
    );
  });
});

describe('weekly_report of a busy month', () => {
  it('counts every deployment but lists at most 200, and says so', async () => {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(`${data.dir}/opsdesk.db`);
    const insert = db.prepare(
      "INSERT INTO deployments (service, env, version, ticket, deployed_by, created_at) VALUES ('search-service', ?, 'v0.9.4', NULL, 'bob', ?)",
    );
    db.transaction(() => {
      for (let i = 0; i < 250; i++)
        insert.run(
          i % 2 === 0 ? 'dev' : 'staging',
          `2026-09-10T${String(10 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00.000Z`,
        );
    })();
    db.close();
    const r = await report(bob, { project: 'search-service', from: '2026-09-01', to: '2026-09-30' });
    expect(r.status).toBe('done');
    const lines = (r.text ?? '').split('\n');
    expect(lines[0]).toBe('Weekly report for search-service, 2026-09-01 to 2026-09-30: 250 deployments.');
    expect(lines.filter((l) => l.startsWith('- '))).toHaveLength(200);
    expect(lines.at(-1)).toBe('(The first 200 of 250 are listed.)');
    expect(r.structured?.byEnv).toEqual({ dev: 125, staging: 125, prod: 0 });
    expect(r.structured?.deployments).toHaveLength(200);
  });
});
