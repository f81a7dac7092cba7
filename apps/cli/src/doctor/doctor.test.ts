import { afterAll, describe, expect, it } from 'vitest';
import { BROKEN, brokenServer, host } from '../../test/broken-servers.js';
import { main } from '../main.js';
import type { DoctorReport } from './report.js';

const hosted: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(hosted.map((h) => h.close()));
});

async function doctorJson(argv: string[]): Promise<{ code: number; report: DoctorReport; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['doctor', ...argv, '--json'], { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, report: JSON.parse(out.join('\n')) as DoctorReport, err: err.join('\n') };
}

const WARNING_ONLY = new Set(['EK10', 'EK11', 'EK08-three']);

describe('doctor finds each deliberately broken server', () => {
  it.each(BROKEN)('%s', async (bug) => {
    const server = await host(() => brokenServer(bug));
    hosted.push(server);
    const rule = bug.slice(0, 4);
    const era = bug.startsWith('EK13') ? 'all' : 'legacy';
    const plain = await doctorJson([server.url, '--era', era, '--timeout-ms', '1500', '--concurrency', '4']);
    const found = plain.report.findings.filter((f) => f.rule === rule);
    expect(found.length, JSON.stringify(plain.report.findings, null, 2)).toBeGreaterThan(0);
    expect(found[0]?.tool).toBe(`deploy_${bug.toLowerCase().replace(/-/g, '_')}`);
    if (bug === 'EK08-three') expect(found[0]?.severity).toBe('warning');
    if (WARNING_ONLY.has(bug)) {
      expect(plain.code).toBe(0);
      const strict = await doctorJson([server.url, '--era', era, '--timeout-ms', '1500', '--strict']);
      expect(strict.code).toBe(1);
    } else {
      expect(found.some((f) => f.severity === 'error')).toBe(true);
      expect(plain.code).toBe(1);
    }
  });

  it('a server that hangs does not hang doctor: its calls time out and the rest are skipped', async () => {
    const server = await host(() => brokenServer('EK13-hang'));
    hosted.push(server);
    const { report } = await doctorJson([server.url, '--era', 'legacy', '--timeout-ms', '300']);
    const none = report.tools[0]?.calls.filter((c) => c.strategy === 'none') ?? [];
    expect(none.map((c) => c.outcome)).toEqual(['timeout']);
    expect(none[0]?.ms).toBeLessThan(5_000);
  });
});

describe('doctor --revision', () => {
  it('plays only the clients of that revision', async () => {
    const server = await host(() => brokenServer('EK05'));
    hosted.push(server);
    const { report } = await doctorJson([server.url, '--revision', '2025-06-18', '--timeout-ms', '1500']);
    expect(report.revisions.map((r) => [r.profile, r.negotiated])).toEqual([
      ['2025-06-18 elicitation:{}', '2025-06-18'],
    ]);
    const legacy = await doctorJson([server.url, '--era', 'legacy', '--timeout-ms', '1500']);
    expect(legacy.report.revisions.map((r) => r.profile)).toEqual([
      '2025-11-25 form+url',
      '2025-11-25 form',
      '2025-06-18 elicitation:{}',
      '2025-11-25 no elicitation',
    ]);
  });
});

describe('doctor on opsdesk', () => {
  it('finds no errors on any profile, and reports the negotiated revisions', async () => {
    const { code, report } = await doctorJson(['opsdesk', '--concurrency', '4']);
    expect(report.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(code).toBe(0);
    expect(report.server?.name).toBe('opsdesk');
    expect(report.revisions.map((r) => [r.profile, r.negotiated])).toEqual([
      ['2025-11-25 form+url', '2025-11-25'],
      ['2025-11-25 form', '2025-11-25'],
      ['2025-06-18 elicitation:{}', '2025-06-18'],
      ['2025-11-25 no elicitation', '2025-11-25'],
      ['2026-07-28 form+url', '2026-07-28'],
      ['2026-07-28 form', '2026-07-28'],
      ['2026-07-28 no elicitation', '2026-07-28'],
    ]);
    const deploy = report.tools.find((t) => t.name === 'deploy_service');
    expect(deploy?.calls.find((c) => c.profile === '2025-11-25 form+url' && c.strategy === 'cancel')?.outcome).toBe(
      'cancelled',
    );
    expect(deploy?.calls.find((c) => c.profile === '2026-07-28 no elicitation')?.outcome).toBe('unsupported');
  });
});

describe('doctor usage', () => {
  it.each([
    [['doctor'], /missing <target>/],
    [['doctor', 'ftp://x'], /only http and https/],
    [['doctor', 'opsdesk', '--era', 'future'], /--era must be legacy, modern or all/],
    [['doctor', 'opsdesk', '--era', 'toString'], /--era must be legacy, modern or all/],
    [['doctor', 'opsdesk', '--revision', 'auto'], /--revision must be 2025-06-18, 2025-11-25, 2026-07-28, not "auto"/],
    [['doctor', 'opsdesk', '--revision', '2025-06-18', '--era', 'all'], /give --revision or --era, not both/],
    [['doctor', 'opsdesk', '--fixtures', '/nonexistent.json'], /--fixtures \/nonexistent.json/],
    [['doctor', 'a', 'b'], /one target/],
    [['doctor', 'opsdesk', '--', 'node', 'x.js'], /either a target/],
  ])('%j is a usage error', async (argv, message) => {
    const err: string[] = [];
    expect(await main(argv, { out: () => {}, err: (s) => err.push(s) })).toBe(2);
    expect(err.join('\n')).toMatch(message);
  });

  it('an unreachable target exits 1 with a message naming it', async () => {
    const err: string[] = [];
    const code = await main(['doctor', 'http://127.0.0.1:9/mcp', '--era', 'legacy', '--json'], {
      out: () => {},
      err: (s) => err.push(s),
    });
    expect(code).toBe(1);
    expect(err.join('\n')).toMatch(/could not connect to http:\/\/127\.0\.0\.1:9\/mcp/);
  });
});
