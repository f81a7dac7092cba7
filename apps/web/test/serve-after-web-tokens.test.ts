/**
 * `npm start` first, then `elicitkit serve --http` on the same data: the operator's first start
 * must print a bearer token per user. Was: the web app's in-process opsdesk ran the first start
 * itself — it minted every user's token and showed them to no one — and held tokens of its own
 * besides, so `serve --http` found tokens stored, printed none, and no HTTP client could ever
 * connect. Now the web app mints no first-start tokens, and only an operator's (never-expiring)
 * token makes a later start not a first one. The real web app's opsdesk host, then the real CLI
 * as a process, then a real SDK client with a printed token.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { httpClient, serveHttpProcess } from '../../opsdesk/test/harness.js';

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-then-serve-'));
process.env.ELICITKIT_DATA = data;
for (const name of ['ELICITKIT_SERVERS', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL'])
  delete process.env[name];
const { opsdeskHost, stopOpsdesk } = await import('../lib/opsdesk');

afterAll(async () => {
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
});

describe('the web app ran first on this data', () => {
  it('serve --http prints a token per user, each one works, and a second start prints none', async () => {
    // The web app's opsdesk, as `npm start` runs it: its chats act through their own tokens.
    const host = await opsdeskHost();
    const asOwner = await httpClient(host.url, host.token('owner'), { revision: '2026-07-28' });
    expect((await asOwner.client.listTools()).tools.length).toBeGreaterThan(0);
    await asOwner.client.close();
    await stopOpsdesk();

    // Waited for until it says where it serves; the tokens follow that line.
    const first = await serveHttpProcess(data, [], { tokens: false });
    try {
      // Every user, the web app's `owner` too.
      await expect.poll(() => first.output().match(/ek_/g)?.length ?? 0, { timeout: 10_000 }).toBe(3);
      const printed = Object.fromEntries(
        [...first.output().matchAll(/^\s+(\w+)\s+(ek_\S+)$/gm)].map((m) => [m[1], m[2] as string]),
      );
      expect(Object.keys(printed).sort()).toEqual(['alice', 'bob', 'owner']);
      const bob = await httpClient(first.url, printed.bob ?? '', { revision: '2025-11-25' });
      const listed = await callTool(bob.client, 'list_deployments', {});
      expect(listed.status, listed.text).toBe('done');
      await bob.client.close();
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await serveHttpProcess(data, [], { tokens: false });
    try {
      expect(second.output()).not.toMatch(/ek_/);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
