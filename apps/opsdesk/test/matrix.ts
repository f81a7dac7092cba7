/**
 * The outcome matrix: every tool that asks × every outcome, on one transport and revision,
 * checking the database (and workspace) afterwards: nothing moves except on a valid accept.
 */
import { type Revision, traitsOf } from '@elicitkit/form';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type Step, sleep } from '../../../test/support/mcp.js';
import { CASES } from './cases.js';
import { type Conn, count } from './harness.js';

export interface MatrixSetup {
  /** The data directory the connections share. */
  dataDir: string;
  /** A client with elicitation (form + url). */
  main: Conn;
  /** A client that declared no elicitation capability. */
  bare: Conn;
  /** A client on a server whose questions time out after 300 ms. */
  slow: Conn;
  slowDataDir: string;
  close(): Promise<void>;
}

let counter = 0;
const tag = () => `case${++counter}${Date.now().toString(36)}`;

export function outcomeMatrix(
  transport: string,
  revision: Revision,
  start: (revision: Revision) => Promise<MatrixSetup>,
): void {
  describe(`opsdesk over ${transport} (${revision})`, () => {
    let s: MatrixSetup;
    beforeAll(async () => {
      s = await start(revision);
    }, 120_000);
    afterAll(async () => {
      await s?.close();
    });

    const run = async (conn: Conn, _dataDir: string, tool: string, args: Record<string, unknown>, steps: Step[]) => {
      conn.script.splice(0, conn.script.length, ...steps);
      const r = await callTool(conn.client, tool, args);
      expect(conn.script, `${tool}: every scripted answer should have been used`).toEqual([]);
      return r;
    };

    for (const c of CASES) {
      describe(c.tool, () => {
        it('accept, valid: done, and only now does anything change', async () => {
          const t = tag();
          const args = c.arrange(s.dataDir, t);
          const before = c.state(s.dataDir, t);
          const r = await run(s.main, s.dataDir, c.tool, args, c.valid(s.dataDir));
          expect(r.status, r.text).toBe('done');
          if (c.tool === 'weekly_report') expect(c.state(s.dataDir, t)).toEqual(before);
          else expect(c.state(s.dataDir, t)).not.toEqual(before);
        });

        const unchanged: [string, Step[], string, RegExp?][] = [
          ['accept, invalid', c.invalid, 'invalid', c.invalidReason],
          ['accept, empty', [{ action: 'accept', content: {} }], 'invalid', /accepted without any values/],
          ['decline', [{ action: 'decline' }], 'declined'],
          ['cancel', [{ action: 'cancel' }], 'cancelled'],
        ];
        for (const [label, steps, status, reason] of unchanged) {
          it(`${label}: ${status}, nothing changes`, async () => {
            const t = tag();
            const args = c.arrange(s.dataDir, t);
            const before = c.state(s.dataDir, t);
            const r = await run(s.main, s.dataDir, c.tool, args, steps);
            expect(r.status, r.text).toBe(status);
            if (reason) expect(r.text).toMatch(reason);
            expect(c.state(s.dataDir, t)).toEqual(before);
          });
        }

        it('unsupported client: the missing arguments are named, nothing changes', async () => {
          const t = tag();
          const args = c.arrange(s.dataDir, t);
          const before = c.state(s.dataDir, t);
          const r = await run(s.bare, s.dataDir, c.tool, args, []);
          expect(r.status, r.text).toBe('unsupported');
          expect(r.text).toMatch(/call \w+ again with them|cannot ask the user/);
          expect(c.state(s.dataDir, t)).toEqual(before);
        });

        it('timeout: no answer in time, nothing changes', async () => {
          const t = tag();
          const args = c.arrange(s.slowDataDir, t);
          const before = c.state(s.slowDataDir, t);
          const late: Step =
            traitsOf(revision).asks === 'push'
              ? 'hang'
              : async () => {
                  await sleep(500); // past the server's 300 ms deadline
                  return { action: 'accept', content: {} };
                };
          const r = await run(s.slow, s.slowDataDir, c.tool, args, [late]);
          expect(r.status, r.text).toBe('timeout');
          expect(c.state(s.slowDataDir, t)).toEqual(before);
        });
      });
    }

    it.each(REFUSED_ARGUMENTS)(
      '%s %j: invalid with the reason, nothing asked, nothing changes',
      async (tool, args, field) => {
        const deployments = count(s.dataDir, 'deployments');
        const asked = s.main.seen.length;
        const r = await run(s.main, s.dataDir, tool, args, []);
        expect(r.status, r.text).toBe('invalid');
        expect(r.text).toMatch(/^The arguments of this call were not accepted/);
        expect((r.structured?.issues as { field: string }[] | undefined)?.map((i) => i.field)).toEqual([field]);
        expect(s.main.seen).toHaveLength(asked);
        expect(count(s.dataDir, 'deployments')).toBe(deployments);
      },
    );
  });
}

/** Arguments each tool's input schema refuses: the SDK never sees them refused, the kit answers `invalid`. */
const REFUSED_ARGUMENTS: [tool: string, args: Record<string, unknown>, field: string][] = [
  ['deploy_service', {}, 'service'],
  ['deploy_service', { service: 'order-service', env: 'qa' }, 'env'],
  ['execute_sql', { sql: `SELECT '${'x'.repeat(20_000)}'` }, 'sql'],
  ['weekly_report', { from: 20261101 }, 'from'],
  ['sync_file', {}, 'path'],
];
