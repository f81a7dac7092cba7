/**
 * sync_file on 2026-07-28 runs again from the top on the round that carries the person's answer.
 * When the conflict the person was asked about had meanwhile become a one-sided change (one
 * side's edit reverted to the last synced version), that round took the one-sided branch and
 * copied the other side over without looking at the answer — even when the answer rejected that
 * very version ("keep remote" pushed the local edit; "keep local" pulled the remote edit; "merge
 * by hand" pushed too) — and the answer was not recorded. The kit now stops a side effect that a
 * round reaches without asking a question the person said yes to (`answer_unused`: nothing runs,
 * the answer is on the trail as not counted), as 2025-11-25 refuses the same sequence.
 *
 * Raw 2026-07-28 rounds over loopback HTTP (and a real SDK client on 2025-11-25 for comparison).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { accept, pendingOf, type RoundParams, wireRound } from '../../../test/support/modern-wire.js';
import { httpClient, httpOpsdeskForSuite, peek, tokenOf } from './harness.js';

const served = httpOpsdeskForSuite();
const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const side = (s: 'local' | 'remote', p: string) => join(served.dataDir, 'workspace', s, p);
const write = (f: string, t: string) => {
  mkdirSync(join(f, '..'), { recursive: true });
  writeFileSync(f, t);
};

async function syncedThenConflict(path: string): Promise<void> {
  write(side('local', path), 'base\n');
  const c = await httpClient(served.server.url, tokenOf(served.server, 'alice'), { revision: '2025-11-25' });
  try {
    expect((await callTool(c.client, 'sync_file', { path })).status).toBe('done');
  } finally {
    await c.close();
  }
  write(side('local', path), 'local edit L1\n');
  write(side('remote', path), 'remote edit R1\n');
}

describe('sync_file: "keep remote" never pushes the local version', () => {
  it.each([
    ['keep_remote', accept({ resolution: 'keep_remote' })],
    ['manual', accept({ resolution: 'manual' })],
  ] as const)(
    '2026-07-28, answered %s: the remote edit reverted before the answer round — the rejected local draft is not pushed',
    async (name, answer) => {
      const path = `answer/modern-${name}.txt`;
      await syncedThenConflict(path);
      const token = tokenOf(served.server, 'alice');
      const call: RoundParams = { name: 'sync_file', arguments: { path } };
      const { requestState, asks } = pendingOf(await wireRound(served.server.url, call, as(token)));
      expect(asks).toEqual(['resolution']);
      // While the person decides, the remote side goes back to the last synced version.
      write(side('remote', path), 'base\n');
      const answered = await wireRound(
        served.server.url,
        { ...call, requestState, inputResponses: { resolution: answer } },
        as(token),
      );
      const s = answered.result?.structuredContent as
        | { status?: string; action?: string; message?: string }
        | undefined;
      expect(
        readFileSync(side('remote', path), 'utf8'),
        `answered ${name}, the call ended ${s?.status}/${s?.action}: ${s?.message}`,
      ).not.toBe('local edit L1\n');
      expect(answered.result?.structuredContent).toMatchObject({
        status: 'invalid',
        issues: [{ code: 'answer_unused' }],
      });
    },
  );

  it('2026-07-28: the answer that round carried is on the record (a question that reached a person leaves a response row)', async () => {
    const path = 'answer/trail.txt';
    await syncedThenConflict(path);
    const token = tokenOf(served.server, 'alice');
    const call: RoundParams = { name: 'sync_file', arguments: { path } };
    const first = await wireRound(served.server.url, call, as(token));
    const { requestState } = pendingOf(first);
    write(side('remote', path), 'base\n');
    await wireRound(
      served.server.url,
      { ...call, requestState, inputResponses: { resolution: accept({ resolution: 'keep_remote' }) } },
      as(token),
    );
    const asked = peek<{ context_id: string }>(
      served.dataDir,
      "SELECT context_id FROM audit_requests WHERE tool = 'sync_file' AND message LIKE 'answer/trail.txt %'",
    );
    expect(asked).toHaveLength(1);
    const answered = peek(
      served.dataDir,
      'SELECT action, content FROM audit_responses WHERE context_id = ?',
      asked[0]?.context_id,
    );
    // Recorded as typed text is: the round that carried it asked no form that offered the option.
    expect(answered, 'the person answered keep_remote; the trail has only the question').toEqual([
      { action: 'accept', content: JSON.stringify({ resolution: '[redacted: 11 chars]' }) },
    ]);
  });

  it('2026-07-28, answered keep_local: the local edit reverted before the answer round — the rejected remote edit is not pulled', async () => {
    const path = 'answer/pull.txt';
    await syncedThenConflict(path);
    const token = tokenOf(served.server, 'alice');
    const call: RoundParams = { name: 'sync_file', arguments: { path } };
    const { requestState } = pendingOf(await wireRound(served.server.url, call, as(token)));
    write(side('local', path), 'base\n');
    const answered = await wireRound(
      served.server.url,
      { ...call, requestState, inputResponses: { resolution: accept({ resolution: 'keep_local' }) } },
      as(token),
    );
    const s = answered.result?.structuredContent as { status?: string; action?: string; message?: string } | undefined;
    expect(
      readFileSync(side('local', path), 'utf8'),
      `answered keep_local, the call ended ${s?.status}/${s?.action}: ${s?.message}`,
    ).not.toBe('remote edit R1\n');
    expect(s).toMatchObject({ status: 'invalid' });
  });

  it('2025-11-25, the same sequence: refused, nothing overwritten (for comparison)', async () => {
    const path = 'answer/legacy.txt';
    await syncedThenConflict(path);
    const c = await httpClient(served.server.url, tokenOf(served.server, 'alice'), { revision: '2025-11-25' });
    try {
      c.script.push(async () => {
        write(side('remote', path), 'base\n');
        return { action: 'accept', content: { resolution: 'keep_remote' } };
      });
      const r = await callTool(c.client, 'sync_file', { path });
      expect(r.status).toBe('rejected');
      expect(readFileSync(side('remote', path), 'utf8')).toBe('base\n');
    } finally {
      await c.close();
    }
  });
});
