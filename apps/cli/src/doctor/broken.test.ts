import { afterAll, describe, expect, it } from 'vitest';
import { BROKEN, brokenServer, host, rpcErrorServer, toolName } from '../../test/broken-servers.js';
import { doctorJson, rulesOf } from '../../test/doctor-harness.js';

const hosted: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(hosted.map((h) => h.close()));
});

/** What doctor must find on each one-fault server, over every profile, and nothing else. */
const EXPECTED: Record<string, string[]> = {
  EK01: ['EK01 error'],
  'EK01-form': ['EK01 error'],
  EK02: ['EK02 error'],
  EK03: ['EK03 error address'],
  EK04: ['EK04 error'],
  'EK04-partial': ['EK04 error'],
  EK05: ['EK05 error'],
  EK06: ['EK06 error confirmed'],
  EK09: ['EK09 error password'],
  EK10: ['EK10 warning confirmed'],
  EK11: ['EK11 warning'],
  EK12: ['EK12 error'],
  'EK12-url': ['EK12 error'],
  'EK13-crash': ['EK13 warning'],
  'EK13-hang': ['EK13 error'],
  'EK13-status': ['EK13 error'],
  EK14: ['EK14 error'],
  EK15: ['EK15 error replicas'],
  EK16: ['EK16 error'],
  EK17: ['EK17 error', 'EK17 error env', 'EK17 error regions', 'EK17 error replicas'],
  EK18: ['EK18 error env'],
  'EK08-three': ['EK08 warning'],
  'EK08-four': ['EK08 error'],
  'EK08-one-key': ['EK08 warning'],
};

describe('doctor finds each deliberately broken server, and nothing else', () => {
  it('has an expectation for every broken server', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...BROKEN].sort());
  });

  it.each(BROKEN)('%s', async (bug) => {
    const server = await host(() => brokenServer(bug));
    hosted.push(server);
    const { code, report } = await doctorJson([server.url, '--allow-destructive', '--timeout-ms', '1000']);
    expect(rulesOf(report), JSON.stringify(report.findings, null, 2)).toEqual(EXPECTED[bug]);
    expect(report.findings.every((f) => f.tool === toolName(bug))).toBe(true);
    const errors = report.findings.some((f) => f.severity === 'error');
    expect(code).toBe(errors ? 1 : 0);
    if (!errors) {
      const strict = await doctorJson([server.url, '--allow-destructive', '--timeout-ms', '1000', '--strict']);
      expect(strict.code).toBe(1);
    }
  });

  it('a tool that hangs only on 2026-07-28, where it can be asked, is noted: no rule names it, but its clients wait', async () => {
    const server = await host(() => brokenServer('hang-2026'));
    hosted.push(server);
    const { report } = await doctorJson([server.url, '--allow-destructive', '--timeout-ms', '1000']);
    expect(report.findings).toEqual([]);
    expect(report.notes.map((n) => n.message)).toEqual([
      expect.stringMatching(
        /^hung under 2026-07-28 [^:]*: no answer in \d+ ms, while 2025-11-25 [^ ]+ answered the same call in \d+ ms/,
      ),
    ]);
  });

  it('EK16 quotes both revisions: asked on 2025-11-25, acted without asking on 2026-07-28', async () => {
    const server = await host(() => brokenServer('EK16'));
    hosted.push(server);
    const { report } = await doctorJson([server.url, '--revision', '2025-11-25', '--timeout-ms', '1000']);
    expect(report.findings).toEqual([]);
    const both = await doctorJson([server.url, '--timeout-ms', '1000']);
    const ek16 = both.report.findings.find((f) => f.rule === 'EK16');
    expect(ek16?.message).toMatch(/asked on 2025-\d\d-\d\d but acted without asking on 2026-07-28/);
    const [asking, silent] = ek16?.transcripts ?? [];
    expect(asking?.asks.map((a) => a.fields)).toEqual([['service']]);
    expect(silent?.profile).toMatch(/^2026-07-28 form/);
    expect([silent?.asks, silent?.outcome]).toEqual([[], 'done']);
    // Without --allow-destructive the typed confirmation is declined, never accepted.
    expect(asking?.asks[0]?.answer).toMatch(/^(decline|cancel)/);
  });

  it('EK17 is judged on the raw wire, for the 2025-06-18 client only', async () => {
    const server = await host(() => brokenServer('EK17'));
    hosted.push(server);
    const { report } = await doctorJson([server.url, '--revision', '2025-11-25']);
    expect(report.findings).toEqual([]);
    const old = await doctorJson([server.url, '--revision', '2025-06-18']);
    expect(old.report.findings.map((f) => f.message)).toEqual([
      'the request carries mode "form", which 2025-06-18 does not have',
      '"env" is sent as a titled select (oneOf), which 2025-06-18 does not have',
      '"regions" is sent as a multi-select, which 2025-06-18 does not have',
      '"replicas" is sent with a default on a non-boolean field (2), which 2025-06-18 does not have',
    ]);
  });

  it("EK11 takes the names in the call's arguments and in earlier answers as the person's own words", async () => {
    const server = await host(() => brokenServer('given-words', { readOnly: true }));
    hosted.push(server);
    const { report } = await doctorJson([server.url, '--revision', '2025-11-25']);
    // Both messages show, unquoted, a snake_case name: the table doctor sent, the region it chose.
    expect(report.tools[0]?.questions.map((q) => q.message)).toEqual([
      'Which region should the rows of order_items be restored in?',
      'Which release ticket covers restoring order_items in us_east_1?',
    ]);
    expect(report.findings).toEqual([]);
  });

  it('a JSON-RPC error without the capability is EK13, by its code', async () => {
    const server = await host(() => rpcErrorServer());
    hosted.push(server);
    const { report, code } = await doctorJson([server.url, '--revision', '2025-11-25']);
    expect(rulesOf(report)).toEqual(['EK13 error']);
    expect(report.findings[0]?.message).toMatch(/failed with JSON-RPC error -32603 when the client cannot elicit/);
    expect(code).toBe(1);
  });

  it('a status word of its own ("deployed") is judged by isError: a deploy after a cancel is EK05, said to be judged so', async () => {
    const server = await host(() => brokenServer('own-word', { readOnly: true }));
    hosted.push(server);
    const { report, code } = await doctorJson([server.url, '--revision', '2025-11-25', '--budget', '0']);
    expect(report.findings.map((f) => [f.rule, f.severity, f.ambiguous, f.strategy])).toEqual([
      ['EK04', 'warning', true, 'accept-empty'],
      ['EK05', 'warning', true, 'cancel'],
    ]);
    expect(report.findings[1]?.message).toBe(
      'reported success after the user cancelled (judged by isError alone: its structuredContent.status "deployed" is none doctor knows)',
    );
    // The kit's own words keep their meaning: the decline said "declined", and no finding names it.
    expect(
      report.tools[0]?.calls.filter((c) => c.strategy === 'decline' && c.skipped === null).map((c) => c.outcome),
    ).toEqual(['declined', 'declined']);
    expect(code).toBe(0);
  });

  it('a form sent to a client that declared only URL mode is EK01: its SDK refuses it unanswered', async () => {
    const server = await host(() => brokenServer('EK01-form', { readOnly: true }));
    hosted.push(server);
    const { report, code } = await doctorJson([server.url, '--revision', '2025-11-25', '--budget', '0']);
    expect(report.findings.map((f) => [f.rule, f.profile, f.message])).toEqual([
      ['EK01', '2025-11-25 url', 'sent a form-mode elicitation to a client that declared only url (2025-11-25 url)'],
    ]);
    // The SDK's client refused the form before any answer: the tool fell back, for every way of answering.
    const refused = report.tools[0]?.calls.filter((c) => c.profile === '2025-11-25 url');
    expect(refused?.map((c) => [c.strategy, c.outcome, c.answers])).toEqual([
      ['accept-defaults', 'unsupported', []],
      ['accept-empty', 'unsupported', []],
      ['decline', 'unsupported', []],
      ['cancel', 'unsupported', []],
    ]);
    expect(code).toBe(1);
  });

  it('an error result without structuredContent is judged by isError alone, and the finding says so', async () => {
    const server = await host(() => brokenServer('EK13-crash', { readOnly: true }));
    hosted.push(server);
    const { report } = await doctorJson([server.url, '--revision', '2025-11-25']);
    expect(report.findings.map((f) => [f.rule, f.severity, f.ambiguous])).toEqual([['EK13', 'warning', true]]);
    expect(report.findings[0]?.message).toMatch(/judged by isError alone/);
  });
});
