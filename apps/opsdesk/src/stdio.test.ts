import type { Revision } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { peek, stdioClient, tempDataDir } from '../test/harness.js';
import { outcomeMatrix } from '../test/matrix.js';

/** `elicitkit serve --stdio` in a child process, three connections (three children) per revision. */
async function start(revision: Revision) {
  const data = tempDataDir();
  const slowData = tempDataDir();
  const [main, bare, slow] = await Promise.all([
    stdioClient(data.dir, { revision, user: 'alice' }),
    stdioClient(data.dir, { revision, user: 'alice', capabilities: {} }),
    stdioClient(slowData.dir, { revision, user: 'alice', timeoutMs: 300 }),
  ]);
  return {
    dataDir: data.dir,
    slowDataDir: slowData.dir,
    main,
    bare,
    slow,
    async close() {
      await Promise.all([main.close(), bare.close(), slow.close()]);
      data.remove();
      slowData.remove();
    },
  };
}

outcomeMatrix('stdio', '2025-11-25', start);
outcomeMatrix('stdio', '2026-07-28', start);

describe('a stdio client that goes away mid-question (2025-11-25)', () => {
  it('ends the question at once as a cancel, and the audit trail says it disconnected', async () => {
    const data = tempDataDir();
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const c = await stdioClient(data.dir, {
      revision: '2025-11-25',
      user: 'alice',
      script: [
        () => {
          asked();
          return 'hang';
        },
      ],
    });
    const call = callTool(c.client, 'deploy_service', { service: 'order-service' }).catch((e: unknown) => e);
    await wasAsked;
    await c.close(); // the pipe closes; opsdesk records how the question ended, then exits
    expect(await call).toBeInstanceOf(Error);
    const ended = () =>
      peek<{ action: string; detail: string | null }>(
        data.dir,
        "SELECT action, detail FROM audit_responses WHERE tool = 'deploy_service'",
      );
    await expect.poll(ended).toHaveLength(1);
    expect(ended()[0]).toMatchObject({ action: 'cancel', detail: expect.stringMatching(/^disconnected/) });
    data.remove();
  });
});

describe('several opsdesk processes starting at once on a fresh data directory', () => {
  // Six starts at once, each on the run's one-file build of `serve` (about 0.7 CPU-seconds each;
  // from the sources under tsx, 2 each, this ran past the test's 30 s with four busy loops beside
  // it on two cores). It fails (a process exits: Connection closed) when shop.db's emptiness is
  // checked outside the write transaction that seeds it: 3 of 3 at that load.
  it('all serve: the first-start seed and the local owner are made once, under a lock', async () => {
    const data = tempDataDir();
    const conns = await Promise.all(Array.from({ length: 6 }, () => stdioClient(data.dir, { revision: '2025-11-25' })));
    const listed = await Promise.all(conns.map((c) => c.client.listTools()));
    expect(listed.every((l) => l.tools.length === 6)).toBe(true);
    await Promise.all(conns.map((c) => c.close()));
    expect(peek<{ n: number }>(data.dir, "SELECT COUNT(*) AS n FROM users WHERE role = 'owner'")).toEqual([{ n: 1 }]);
    data.remove();
  });
});
