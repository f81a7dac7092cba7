/**
 * `elicitkit audit` shows a call opsdesk refused without asking (bob deploying order-service) as
 * that call's `refused` line, and under `refusals` with `--json`. The call goes over real HTTP
 * with bob's token.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueToken, serveHttp } from '@elicitkit/opsdesk';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect, it } from 'vitest';
import { main } from './main.js';

it('a refusal is the call’s line in the audit, by its user', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ek-audit-refusals-'));
  try {
    const server = await serveHttp({ dataDir: dir, locale: 'en', port: 0 });
    const client = new Client({ name: 'audit-test', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { authorization: `Bearer ${await issueToken(server.opsdesk.store, 'bob')}` } },
        }),
      );
      const result = await client.callTool({ name: 'deploy_service', arguments: { service: 'order-service' } });
      expect(result.structuredContent).toMatchObject({ status: 'rejected' });
    } finally {
      await client.close();
      await server.close();
    }
    const text: string[] = [];
    expect(await main(['audit', '--data', dir], { out: (s) => text.push(s), err: () => {} })).toBe(0);
    expect(text.join('\n')).toMatch(
      /call \S+ by bob \(#\d+\)\n.*refused {5}deploy_service \[2025-11-25\] .*order-service/,
    );
    const json: string[] = [];
    expect(await main(['audit', '--data', dir, '--json'], { out: (s) => json.push(s), err: () => {} })).toBe(0);
    expect(JSON.parse(json.join('\n')).refusals).toEqual([
      expect.objectContaining({ tool: 'deploy_service', username: 'bob' }),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
