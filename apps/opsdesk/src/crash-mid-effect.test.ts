/**
 * A crash in the middle of an effect leaves no effect without the records of the questions that
 * led to it: opsdesk is killed (SIGKILL) inside deploy_service's transaction, after its row is
 * written, over real HTTP on both revisions. The answer's records share that transaction, so
 * they are lost with the row; the question's record, committed when it was asked, stays.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Revision } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { count, httpClient, peek, SOURCE_NODE_ARGS, tempDataDir } from '../test/harness.js';

const CRASHING = fileURLToPath(new URL('../test/serve-crashing.ts', import.meta.url));

async function serveCrashing(dataDir: string) {
  const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, CRASHING, dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8');
  // Read as it comes: a pipe nobody reads blocks the child's writes once full.
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (/serving \S+\n/.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve-crashing exited with ${code}: ${out}${err}`)));
  });
  const token = /^\s+alice\s+(ek_\S+)$/m.exec(out)?.[1] ?? '';
  return { child, url: /serving (\S+)/.exec(out)?.[1] ?? '', token };
}

describe.each(['2025-11-25', '2026-07-28'] as Revision[])('opsdesk killed inside an effect (%s)', (revision) => {
  it('leaves neither the deployment nor the answer’s records, and keeps the question’s', async () => {
    const data = tempDataDir();
    try {
      const served = await serveCrashing(data.dir);
      const exited = once(served.child, 'exit');
      const conn = await httpClient(served.url, served.token, {
        revision,
        script: [{ action: 'accept', content: { env: 'staging' } }],
      });
      const deploymentsBefore = count(data.dir, 'deployments');
      const call = callTool(conn.client, 'deploy_service', { service: 'order-service' });
      call.catch(() => {});
      const [, signal] = await exited;
      expect(signal).toBe('SIGKILL');
      // A 2025 client would wait to resume its stream; closing it ends the call it lost.
      await conn.close().catch(() => {});
      await expect(call).rejects.toThrow();

      expect(conn.seen).toHaveLength(1);
      expect(count(data.dir, 'deployments')).toBe(deploymentsBefore);
      expect(peek(data.dir, "SELECT tool, question FROM audit_requests WHERE tool = 'deploy_service'")).toEqual([
        { tool: 'deploy_service', question: 'env' },
      ]);
      expect(count(data.dir, 'audit_responses')).toBe(0);
      expect(count(data.dir, 'audit_validations')).toBe(0);
      expect(count(data.dir, 'elicitkit_claims')).toBe(0);
    } finally {
      data.remove();
    }
  }, 60_000);
});
