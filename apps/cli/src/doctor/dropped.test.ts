import { afterAll, describe, expect, it } from 'vitest';
import { badHeaderServer, host, toolName } from '../../test/broken-servers.js';
import { doctorJson } from '../../test/doctor-harness.js';

const hosted: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(hosted.map((h) => h.close()));
});

describe('a tool the server lists and the SDK drops', () => {
  // Was: on 2026-07-28 over HTTP the SDK's client dropped the tool (an invalid x-mcp-header) with
  // a console warning only; doctor, reading the SDK's list, reported the others and passed.
  it('is named in the report, not checked, and the check does not pass', async () => {
    const server = await host(() => badHeaderServer('set_region'));
    hosted.push(server);
    const { report, code, err } = await doctorJson([server.url, '--revision', '2026-07-28', '--budget', '0']);
    expect(report.tools.map((t) => t.name)).toEqual([toolName('good')]);
    for (const r of report.revisions)
      expect(r.error).toBe(
        'the server lists "set_region", which the SDK\'s client leaves out of its tool list (as it must leave out a tool whose x-mcp-header declarations are invalid, on 2026-07-28 over HTTP), so clients built on it cannot call it; not checked',
      );
    expect(report.summary.stopped).toHaveLength(report.revisions.length);
    expect(report.summary.ok).toBe(false);
    expect(code).toBe(1);
    expect(err).toContain('the check stopped under 2026-07-28 form+url: the server lists "set_region"');
  }, 60_000);

  it('on 2025-11-25 the SDK keeps it, and it is checked like any other', async () => {
    const server = await host(() => badHeaderServer('set_region'));
    hosted.push(server);
    const { report, code } = await doctorJson([server.url, '--revision', '2025-11-25', '--budget', '0']);
    expect(report.tools.map((t) => t.name)).toEqual([toolName('good'), 'set_region']);
    expect(report.summary.stopped).toEqual([]);
    expect(code).toBe(0);
  }, 60_000);
});
