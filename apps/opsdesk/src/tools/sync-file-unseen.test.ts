/**
 * sync_file on 2026-07-28: the round that carries the person's choice reads both sides again and
 * compares the files it copies against *that* read, not against what the person was shown. The
 * only thing tying the two together is the question's wording (sizes, times to the second, and
 * the first 8 changed lines). A side rewritten between the rounds with the same size and
 * modification time (`cp -p`, `rsync -t`, `touch -r`, or just the same second), its edit past
 * the lines the question shows, reads as the same question: the person's "keep local" then
 * overwrites the remote side with a version they never compared. On 2025 the call keeps the
 * versions it showed and refuses ("changed while you were deciding"). The question is bound to
 * both sides' content hashes (`about`), so the answer does not count and it is asked again.
 */
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accept, pendingOf, type RoundParams, wireRound } from '../../../../test/support/modern-wire.js';
import { httpOpsdeskForSuite } from '../../test/harness.js';

describe('sync_file (2026-07-28): a side rewritten between the rounds, unseen by the question', () => {
  const served = httpOpsdeskForSuite();
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

  it('"keep local" never copies a local version the person did not compare', async () => {
    const token = await served.server.ownerToken('dora');
    const local = join(served.dataDir, 'workspace', 'local', 'notes', 'plan.md');
    const remote = join(served.dataDir, 'workspace', 'remote', 'notes', 'plan.md');
    const lines = (tag: string, last: string) =>
      `${Array.from({ length: 12 }, (_, i) => `${tag} line ${String(i).padStart(2, '0')}`).join('\n')}\n${last}\n`;
    // Both sides changed since the seed: a conflict with more than 8 changed lines.
    writeFileSync(local, lines('local', 'limit = 10'));
    writeFileSync(remote, lines('remote', 'limit = 20'));
    const call: RoundParams = { name: 'sync_file', arguments: { path: 'notes/plan.md' } };
    const first = await wireRound(served.server.url, call, as(token));
    const { requestState } = pendingOf(first);
    const shown = JSON.stringify(first.result?.inputRequests);
    expect(shown).toContain('more changed line');

    // While the person reads, the local file is rewritten: same size, its time kept.
    const { atime, mtime } = statSync(local);
    writeFileSync(local, lines('local', 'limit = 99'));
    utimesSync(local, atime, mtime);

    const answered = await wireRound(
      served.server.url,
      { ...call, inputResponses: { resolution: accept({ resolution: 'keep_local' }) }, requestState },
      as(token),
    );
    const status = (answered.result?.structuredContent as { status?: string } | undefined)?.status;
    // Asked again, about the versions as they are now.
    expect(pendingOf(answered).requestState).not.toBe(requestState);
    expect(
      readFileSync(remote, 'utf8'),
      `the remote side must not receive a local version the person was never shown (the round ended ${status})`,
    ).not.toContain('limit = 99');
  });
});
