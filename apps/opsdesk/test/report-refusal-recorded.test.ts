/**
 * A call refused before any question leaves no request row, so opsdesk records it as a refusal
 * (`audit_refusals`, shown by `elicitkit audit` as `refused`). Only results whose status was
 * `rejected` were recorded; weekly_report answers a project the caller may not see with `invalid`
 * (as one that does not exist), so bob asking for order-service's report — a permission refusal
 * made before any question — left nothing in the trail, while list_deployments for the same
 * service was recorded. A call ending `invalid` before any question is now recorded too.
 *
 * Real SDK client over loopback HTTP as bob; the trail read from opsdesk.db and through the CLI
 * as a process.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { CLI, httpClient, httpOpsdeskForSuite, nodeArgs, peek, tokenOf } from './harness.js';

const served = httpOpsdeskForSuite();

const rowsOf = (dir: string) =>
  ['audit_requests', 'audit_responses', 'audit_validations', 'audit_refusals'].flatMap((t) =>
    peek<{ tool: string; username: string | null }>(dir, `SELECT tool, username FROM ${t}`),
  );

describe('the audit trail keeps a permission refusal of weekly_report', () => {
  it('bob asking for a report on a project he may not see is on the record', async () => {
    const c = await httpClient(served.server.url, tokenOf(served.server, 'bob'), { revision: '2025-11-25' });
    try {
      const listed = await callTool(c.client, 'list_deployments', { service: 'order-service' });
      expect(listed.status).toBe('rejected');
      const report = await callTool(c.client, 'weekly_report', {
        project: 'order-service',
        from: '2026-11-01',
        to: '2026-11-30',
      });
      expect(report.status).toBe('invalid');
      expect(report.text).toContain('no project called "order-service" that you may see');
    } finally {
      await c.close();
    }
    const rows = rowsOf(served.dataDir);
    // The list_deployments refusal is recorded: the trail works.
    expect(rows.some((r) => r.tool === 'list_deployments' && r.username === 'bob')).toBe(true);
    expect(
      rows.filter((r) => r.tool === 'weekly_report'),
      'bob refused a hidden project’s report: no record of it in opsdesk.db',
    ).not.toEqual([]);

    const cli = spawnSync(process.execPath, nodeArgs(CLI, 'audit', '--data', served.dataDir, '--json'), {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(cli.status).toBe(0);
    expect(cli.stdout, '`elicitkit audit --json` shows no trace of the refused report').toContain('weekly_report');
  }, 90_000);
});
