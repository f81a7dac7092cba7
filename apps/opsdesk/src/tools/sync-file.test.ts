import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import {
  accept,
  pendingOf,
  type RoundParams,
  type WireRound,
  wireRound,
} from '../../../../test/support/modern-wire.js';
import { type Conn, httpOpsdeskForSuite, memoryClient, tempDataDir } from '../../test/harness.js';
import { localTime } from '../sync/describe.js';

let data: ReturnType<typeof tempDataDir>;
let outside: ReturnType<typeof tempDataDir>;
let c: Conn;
beforeAll(async () => {
  data = tempDataDir();
  outside = tempDataDir();
  c = await memoryClient(data.dir);
});
afterAll(async () => {
  await c.close();
  data.remove();
  outside.remove();
});

const file = (side: 'local' | 'remote', path: string) => join(data.dir, 'workspace', side, path);
const write = (side: 'local' | 'remote', path: string, text: string) => {
  mkdirSync(join(file(side, path), '..'), { recursive: true });
  writeFileSync(file(side, path), text);
};
const read = (side: 'local' | 'remote', path: string) =>
  existsSync(file(side, path)) ? readFileSync(file(side, path), 'utf8') : undefined;
const sync = async (path: string, answer?: string) => {
  c.script.splice(
    0,
    c.script.length,
    ...(answer === undefined
      ? []
      : answer === 'decline' || answer === 'cancel'
        ? [{ action: answer as 'decline' | 'cancel' }]
        : [{ action: 'accept' as const, content: { resolution: answer } }]),
  );
  const asked = c.seen.length;
  const r = await callTool(c.client, 'sync_file', { path });
  return { ...r, question: c.seen[asked] as { message: string; requestedSchema: unknown } | undefined };
};

/** A file synced once, so that later edits count as changes since the last sync. */
async function synced(path: string, text = 'base\n') {
  write('local', path, text);
  const r = await sync(path);
  expect(r.status).toBe('done');
  expect(read('remote', path)).toBe(text);
}

describe('sync_file', () => {
  it('the seed file is present on both sides and in sync', async () => {
    const r = await sync('notes/plan.md');
    expect(r.text).toBe('notes/plan.md is already in sync.');
    expect(r.question).toBeUndefined();
  });

  it('a one-sided local change is pushed without asking', async () => {
    await synced('a/one.txt');
    write('local', 'a/one.txt', 'local edit\n');
    const r = await sync('a/one.txt');
    expect(r.structured).toMatchObject({ status: 'done', action: 'pushed' });
    expect(read('remote', 'a/one.txt')).toBe('local edit\n');
    expect(r.question).toBeUndefined();
  });

  it('a one-sided remote change is pulled without asking', async () => {
    await synced('a/two.txt');
    write('remote', 'a/two.txt', 'remote edit\n');
    const r = await sync('a/two.txt');
    expect(r.structured).toMatchObject({ status: 'done', action: 'pulled' });
    expect(read('local', 'a/two.txt')).toBe('remote edit\n');
  });

  it('a true conflict asks, with both sides’ sizes, local times and a short diff in the message', async () => {
    await synced('c/x.md');
    write('local', 'c/x.md', 'L\n');
    write('remote', 'c/x.md', 'Remote\n');
    utimesSync(file('local', 'c/x.md'), new Date('2026-11-28T10:00:00Z'), new Date('2026-11-28T10:00:00Z'));
    utimesSync(file('remote', 'c/x.md'), new Date('2026-11-29T11:30:00Z'), new Date('2026-11-29T11:30:00Z'));
    const r = await sync('c/x.md', 'manual');
    expect(r.question?.message).toBe(
      [
        'c/x.md changed on both sides since the last sync.',
        `Local: 2 B, modified ${localTime(new Date('2026-11-28T10:00:00Z'), 'en')}.`,
        `Remote: 7 B, modified ${localTime(new Date('2026-11-29T11:30:00Z'), 'en')}.`,
        'Differences (- remote, + local):',
        // Fenced: a client that draws fences (the web dialog) shows the diff in a monospace block.
        '```diff',
        '- Remote',
        '+ L',
        '```',
        'Which version should win?',
      ].join('\n'),
    );
    expect(r.question?.message).not.toMatch(/T\d{2}:\d{2}|\.\d{3}|Z\b/);
    expect(r.question?.requestedSchema).toMatchObject({
      properties: {
        resolution: {
          oneOf: [
            { const: 'keep_local' },
            { const: 'keep_remote' },
            { const: 'keep_both', title: 'Keep both (local saved as c/x.md.local)' },
            { const: 'manual' },
          ],
        },
      },
    });
    expect(r.status).toBe('pending');
    expect([read('local', 'c/x.md'), read('remote', 'c/x.md')]).toEqual(['L\n', 'Remote\n']);
  });

  it.each([
    ['keep_local', 'L\n', 'L\n', undefined],
    ['keep_remote', 'R\n', 'R\n', undefined],
    ['keep_both', 'R\n', 'R\n', 'L\n'],
  ])('resolves with %s', async (resolution, local, remote, copy) => {
    const path = `r/${resolution}.md`;
    await synced(path);
    write('local', path, 'L\n');
    write('remote', path, 'R\n');
    const r = await sync(path, resolution);
    expect(r.structured).toMatchObject({ status: 'done', action: resolution });
    expect([read('local', path), read('remote', path)]).toEqual([local, remote]);
    expect(read('local', `${path}.local`)).toBe(copy);
    expect(read('remote', `${path}.local`)).toBe(copy);
    // And now it is in sync.
    expect((await sync(path)).text).toBe(`${path} is already in sync.`);
  });

  it.each(['decline', 'cancel'] as const)('%s leaves both sides untouched', async (answer) => {
    const path = `d/${answer}.md`;
    await synced(path);
    write('local', path, 'L\n');
    write('remote', path, 'R\n');
    const r = await sync(path, answer);
    expect(r.status).toBe(answer === 'decline' ? 'declined' : 'cancelled');
    expect([read('local', path), read('remote', path)]).toEqual(['L\n', 'R\n']);
  });

  it('a file deleted on one side since the last sync is deleted on the other', async () => {
    await synced('gone.txt');
    writeFileSync(file('local', 'gone.txt'), '');
    const { rmSync } = await import('node:fs');
    rmSync(file('local', 'gone.txt'));
    const r = await sync('gone.txt');
    expect(r.structured).toMatchObject({ action: 'pushed' });
    expect(read('remote', 'gone.txt')).toBeUndefined();
  });

  it.each([
    ['parent traversal', '../../opsdesk.db', 'leaves the workspace'],
    ['traversal in the middle', 'notes/../../remote/notes/plan.md', 'leaves the workspace'],
    ['backslash traversal', '..\\..\\opsdesk.db', 'leaves the workspace'],
    ['absolute path', '/etc/passwd', 'absolute paths are not allowed'],
    ['windows drive', 'C:\\Windows\\win.ini', 'absolute paths are not allowed'],
    ['NUL byte', 'notes/plan.md\0.txt', 'NUL byte'],
    ['the workspace itself', '.', 'leaves the workspace'],
    ['a folder', 'notes', 'folder, not a file'],
  ])('rejects %s', async (_label, path, why) => {
    const r = await sync(path);
    expect(r.status).toBe('rejected');
    expect(r.text).toContain(why);
    expect(r.question).toBeUndefined();
  });

  it('rejects a symlinked file that points outside, and a symlinked folder', async () => {
    writeFileSync(join(outside.dir, 'secret.txt'), 'top secret\n');
    symlinkSync(join(outside.dir, 'secret.txt'), file('local', 'leak.txt'));
    const r1 = await sync('leak.txt');
    expect(r1.status).toBe('rejected');
    expect(r1.text).toContain('points outside the workspace');
    symlinkSync(outside.dir, file('remote', 'escape'));
    const r2 = await sync('escape/secret.txt');
    expect(r2.status).toBe('rejected');
    expect(readFileSync(join(outside.dir, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it.each([
    ['keep_remote', 'local'],
    ['keep_local', 'remote'],
    ['keep_both', 'local'],
  ] as const)(
    '%s chosen while the %s side was edited again: nothing is overwritten, the call says why',
    async (resolution, edited) => {
      const path = `race/${resolution}.md`;
      await synced(path);
      write('local', path, 'L\n');
      write('remote', path, 'R\n');
      // The person compares L with R; before they answer, the other side's file is written again.
      c.script.splice(0, c.script.length, () => {
        write(edited, path, 'written while the question was open\n');
        return { action: 'accept', content: { resolution } };
      });
      const r = await callTool(c.client, 'sync_file', { path });
      expect(r.status).toBe('rejected');
      expect(r.text).toBe(
        `Not done: ${path} changed while you were deciding. Run sync_file again to see the conflict as it is now.`,
      );
      expect(read(edited, path)).toBe('written while the question was open\n');
      expect(read(edited === 'local' ? 'remote' : 'local', path)).toBe(edited === 'local' ? 'R\n' : 'L\n');
      expect(read('local', `${path}.local`)).toBeUndefined();
    },
  );

  it('keep_both never overwrites an earlier saved copy: the local version goes to the next free name', async () => {
    const path = 'both/twice.md';
    await synced(path);
    write('local', path, 'L1\n');
    write('remote', path, 'R1\n');
    expect((await sync(path, 'keep_both')).status).toBe('done');
    expect(read('local', `${path}.local`)).toBe('L1\n');
    // A second conflict on the same file, resolved the same way.
    write('local', path, 'L2\n');
    write('remote', path, 'R2\n');
    const r = await sync(path, 'keep_both');
    expect(r.question?.message).toBeDefined();
    expect(JSON.stringify(r.question?.requestedSchema)).toContain(`local saved as ${path}.local-2`);
    expect(r.structured).toMatchObject({ status: 'done', action: 'keep_both' });
    expect([read('local', `${path}.local`), read('remote', `${path}.local`)]).toEqual(['L1\n', 'L1\n']);
    expect([read('local', `${path}.local-2`), read('remote', `${path}.local-2`)]).toEqual(['L2\n', 'L2\n']);
    expect([read('local', path), read('remote', path)]).toEqual(['R2\n', 'R2\n']);
    expect(r.text).toContain(`${path}.local-2`);
  });

  it('a file on neither side is rejected', async () => {
    expect((await sync('nowhere.txt')).status).toBe('rejected');
  });
});

/**
 * On 2026-07-28 a call is run again from the top each round, so the question a round asks is built
 * again from what the database and the workspace hold *now*. An answer given to one question must
 * not be taken as the answer to a different one: the person confirmed what they were shown. Raw
 * JSON-RPC rounds against `serveHttp`, the files changed between the rounds the way another
 * user (or another process) changes them.
 */
describe('sync_file on 2026-07-28: an answer counts only for the question it answered', () => {
  const served = httpOpsdeskForSuite();
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const questionOf = (round: WireRound, key: string) =>
    String(
      (round.result?.inputRequests as Record<string, { params?: { message?: string } }> | undefined)?.[key]?.params
        ?.message,
    );

  it('"keep remote" chosen on one diff never overwrites a local edit the person did not see', async () => {
    const token = await served.server.ownerToken('dave');
    const { local, remote } = {
      local: join(served.dataDir, 'workspace', 'local', 'notes', 'plan.md'),
      remote: join(served.dataDir, 'workspace', 'remote', 'notes', 'plan.md'),
    };
    writeFileSync(local, '# Release plan\n\nlocal edit one\n');
    writeFileSync(remote, '# Release plan\n\nremote edit\n');
    const call: RoundParams = { name: 'sync_file', arguments: { path: 'notes/plan.md' } };
    const first = await wireRound(served.server.url, call, as(token));
    const { requestState } = pendingOf(first);
    expect(questionOf(first, 'resolution')).toContain('local edit one');

    // The person is still reading the diff when the local side is edited again.
    writeFileSync(local, '# Release plan\n\nlocal edit TWO, written after the question\n');
    const answered = await wireRound(
      served.server.url,
      { ...call, inputResponses: { resolution: accept({ resolution: 'keep_remote' }) }, requestState },
      as(token),
    );
    expect(readFileSync(local, 'utf8')).toContain('local edit TWO');
    expect(pendingOf(answered).asks).toEqual(['resolution']);
    expect(questionOf(answered, 'resolution')).toContain('local edit TWO');
  });
});
