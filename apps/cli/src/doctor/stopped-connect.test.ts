import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { doctorJson } from '../../test/doctor-harness.js';

const SERVER = fileURLToPath(new URL('../../test/old-revision-server.mjs', import.meta.url));
const OLD = '2025-06-18 elicitation:{}';

describe('a revision the server does not serve, and one it dies on', () => {
  // Was: every connection that could not be opened counted as "not served", so a server that
  // crashed on a 2025-06-18 client's initialize passed (ok: true, exit 0) with that revision unchecked.
  it("a server that crashes on one revision's initialize stops the check there: exit 1, its last words in the report", async () => {
    const { report, code, err } = await doctorJson([
      '--budget',
      '0',
      '--timeout-ms',
      '5000',
      '--',
      process.execPath,
      SERVER,
      'crash',
    ]);
    const old = report.revisions.find((r) => r.profile === OLD);
    expect([old?.served, old?.stopped]).toEqual([false, true]);
    expect(old?.error).toMatch(/^Connection closed\nIts last lines on stderr:\n/);
    expect(old?.error).toContain("TypeError: Cannot read properties of undefined (reading 'applyDefaults')");
    // The other 2025 clients were served and checked; 2026-07-28 is refused, as before.
    expect(report.revisions.filter((r) => r.served).map((r) => r.profile)).toEqual([
      '2025-11-25 form+url',
      '2025-11-25 form',
      '2025-11-25 no elicitation',
    ]);
    // A URL-only client declares no `form` either: the server dies on its initialize too.
    expect(report.summary.stopped).toEqual(['2025-11-25 url', OLD]);
    expect(report.summary.ok).toBe(false);
    expect(code).toBe(1);
    expect(err).toContain(`the check stopped under ${OLD}: Connection closed`);
  }, 60_000);

  it('a server that answers that initialize with another version refuses the revision: not served, and no failure', async () => {
    const { report, code } = await doctorJson([
      '--budget',
      '0',
      '--timeout-ms',
      '5000',
      '--',
      process.execPath,
      SERVER,
      'refuse',
    ]);
    const old = report.revisions.find((r) => r.profile === OLD);
    expect([old?.served, old?.stopped]).toEqual([false, false]);
    expect(old?.error).toBe("Server's protocol version is not supported: 2025-11-25");
    expect(report.revisions.filter((r) => !r.served).every((r) => !r.stopped)).toBe(true);
    expect(report.summary).toMatchObject({ stopped: [], ok: true });
    expect(code).toBe(0);
  }, 60_000);
});
