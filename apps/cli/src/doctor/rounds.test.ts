import { afterAll, describe, expect, it } from 'vitest';
import { brokenServer, host } from '../../test/broken-servers.js';
import { brokenStdio, doctorJson, rulesOf } from '../../test/doctor-harness.js';

const hosted: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(hosted.map((h) => h.close()));
});

/** The answers doctor gave in the first call of `strategy`, per tool. */
function answersOf(report: Awaited<ReturnType<typeof doctorJson>>['report'], strategy: string): string[][] {
  return report.tools.map((t) => t.calls.find((c) => c.strategy === strategy)?.answers ?? []);
}

describe('questions asked together are one round: none of them is asked after a decline or a cancel', () => {
  // Was: each pushed message counted as a round of its own, so the second of two questions pushed
  // at once read as asked again after the first was declined or cancelled: EK12 and EK05 errors
  // against a server that asked nothing more.
  it("two questions pushed at once, by the SDK's legacy shim and by a 2025 server of its own", async () => {
    const server = await host(() => brokenServer(['pair', 'pair-push'], { readOnly: true }));
    hosted.push(server);
    const { report, code } = await doctorJson([server.url, '--revision', '2025-11-25', '--budget', '0']);
    // Both questions came, and both were declined (cancelled) in the one call.
    expect(answersOf(report, 'decline')).toEqual([
      ['decline', 'decline'],
      ['decline', 'decline'],
    ]);
    expect(answersOf(report, 'cancel')).toEqual([
      ['cancel', 'cancel'],
      ['cancel', 'cancel'],
    ]);
    expect(rulesOf(report), JSON.stringify(report.findings, null, 2)).toEqual([]);
    expect(code).toBe(0);
  }, 60_000);

  // The second question can come well after the first (300 ms here): the server asked both in one
  // turn of its event loop, so it cannot have read an answer in between. Doctor pings before an
  // answer leaves, and the server answers the ping only after the whole turn, second question
  // included. Without that ping the answer went out first, and the second question read as asked
  // after it.
  it('over stdio, each question a message of its own, the second 300 ms after the first: every revision', async () => {
    const { report, code } = await doctorJson([
      '--budget',
      '0',
      '--timeout-ms',
      '5000',
      '--',
      ...brokenStdio('pair-push', 'pair-apart', 'readonly'),
    ]);
    expect(report.revisions.every((r) => r.served)).toBe(true);
    expect(answersOf(report, 'cancel')).toEqual([
      ['cancel', 'cancel'],
      ['cancel', 'cancel'],
    ]);
    expect(rulesOf(report), JSON.stringify(report.findings, null, 2)).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);
});

describe('EK18 is a question that changes by itself, not one that changes with the answer', () => {
  // Was: a retry prompt that says why the ticket did not fit and how many tries are left reads
  // differently after each answer, and was judged EK18 error ("no answer to it could count"),
  // though each answer counted. The round sent again as it was asks the same question.
  it('a retry prompt that changes after each answer is no EK18', async () => {
    const server = await host(() => brokenServer('retry', { readOnly: true }));
    hosted.push(server);
    const { report, code } = await doctorJson([server.url, '--revision', '2026-07-28', '--budget', '0']);
    // Asked three times, each time with the reason the last ticket did not fit, then invalid.
    const call = report.tools[0]?.calls.find((c) => c.strategy === 'accept-defaults');
    expect([call?.asks, call?.outcome]).toEqual([3, 'invalid']);
    expect(rulesOf(report), JSON.stringify(report.findings, null, 2)).toEqual([]);
    expect(code).toBe(0);
  }, 60_000);
});
