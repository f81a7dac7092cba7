import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { issueToken, serveHttp } from '@elicitkit/opsdesk';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { CLI, count, httpClient, nodeArgs, stdioClient, tempDataDir } from '../../opsdesk/test/harness.js';
import { main } from './main.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** Starts `elicitkit serve --http 0` and waits for the line naming the endpoint. */
async function serveHttpChild(dataDir: string, extra: string[] = []) {
  const child = spawn(process.execPath, nodeArgs(CLI, 'serve', '--http', '0', '--data', dataDir, ...extra), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
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
      if (/bob\s+ek_/.test(out) || (/serving/.test(out) && extra.includes('--no-wait'))) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}${err}`)));
  });
  const url = /serving (\S+)/.exec(out)?.[1] ?? '';
  const tokens = Object.fromEntries([...out.matchAll(/^\s+(\w+)\s+(ek_\S+)$/gm)].map((m) => [m[1], m[2]]));
  return { child, url, tokens, out };
}

describe('elicitkit serve', () => {
  it('--http prints the endpoint and the tokens once, serves both revisions, and stops cleanly on SIGTERM', async () => {
    const data = tempDataDir();
    const first = await serveHttpChild(data.dir);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(Object.keys(first.tokens)).toEqual(['alice', 'bob']);
    for (const revision of ['2025-11-25', '2026-07-28'] as const) {
      const c = await httpClient(first.url, first.tokens.alice ?? '', {
        revision,
        script: [{ action: 'accept', content: { env: 'dev' } }],
      });
      expect((await callTool(c.client, 'deploy_service', { service: 'user-service' })).status).toBe('done');
      await c.close();
    }
    first.child.kill('SIGTERM');
    const [code] = await once(first.child, 'exit');
    expect(code).toBe(0);
    expect(count(data.dir, 'deployments')).toBe(8);

    // A second start on the same data: no new tokens, and the old ones still work.
    const child = spawn(process.execPath, nodeArgs(CLI, 'serve', '--http', '0', '--data', data.dir), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    child.stderr.resume();
    let out = '';
    child.stdout.setEncoding('utf8');
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (/serving/.test(out)) resolve();
      }),
    );
    const url = /serving (\S+)/.exec(out)?.[1] ?? '';
    const again = await httpClient(url, first.tokens.bob ?? '', { revision: '2026-07-28' });
    expect((await callTool(again.client, 'list_deployments')).status).toBe('done');
    await again.close();
    // Everything the second start printed, read to the end of its output: no token among it.
    const ended = once(child.stdout, 'end');
    child.kill('SIGTERM');
    await ended;
    expect(out).not.toContain('ek_');
    data.remove();
  });

  it('--http --max-sessions-per-user caps each user, and a user over it gets 429 at once', async () => {
    const data = tempDataDir();
    const served = await serveHttpChild(data.dir, ['--max-sessions-per-user', '1']);
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const alice = await httpClient(served.url, served.tokens.alice ?? '', {
      revision: '2025-11-25',
      script: [
        () => {
          asked();
          return 'hang';
        },
      ],
    });
    void callTool(alice.client, 'deploy_service', { service: 'user-service' }).catch(() => {});
    await wasAsked; // alice's only session now has a question open
    const again = await fetch(served.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${served.tokens.alice}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(again.status).toBe(429);
    expect(await again.json()).toMatchObject({ error: { data: { limit: 'maxSessionsPerIdentity', max: 1 } } });
    // bob has his own allowance.
    const bob = await httpClient(served.url, served.tokens.bob ?? '', { revision: '2025-11-25' });
    expect((await callTool(bob.client, 'list_deployments')).status).toBe('done');
    await bob.close();
    await alice.close();
    served.child.kill('SIGKILL');
    data.remove();
  });

  it('--stdio speaks Chinese with --lang zh, as the given user', async () => {
    const data = tempDataDir();
    const c = await stdioClient(data.dir, {
      revision: '2025-11-25',
      user: 'bob',
      locale: 'zh',
      script: [{ action: 'decline' }],
    });
    const r = await callTool(c.client, 'deploy_service', { service: 'search-service' });
    expect(c.seen[0]).toMatchObject({
      message: '要把「search-service」v0.9.4 部署到哪个环境？',
      requestedSchema: {
        properties: {
          env: {
            title: '目标环境',
            oneOf: [
              { const: 'dev', title: '开发 (dev)' },
              { const: 'staging', title: '预发 (staging)' },
              { const: 'prod', title: '生产 (prod)' },
            ],
          },
        },
      },
    });
    expect(r.status).toBe('declined');
    expect(r.text).toContain('用户拒绝提供');
    await c.close();
    data.remove();
  });

  it.each([
    [['serve', '--stdio', '--http', '80'], /choose one of --stdio and --http/],
    [['serve', '--http', 'eighty'], /--http needs a whole number/],
    [['serve', '--stdio', '--page-port', '70000'], /--page-port needs a whole number from 0 to 65535/],
    [['serve', '--lang', 'fr'], /--lang must be en or zh/],
    [['serve', '--http', '0', '--user', 'bob'], /--user applies to --stdio/],
    [['serve', '--bogus'], /^elicitkit serve: unknown option --bogus\nRun `elicitkit serve --help` for its options\.$/],
    [['serve', '--stdio', '--max-sessions', '5'], /--max-sessions applies to --http/],
    [['serve', '--http', '0', '--max-calls-per-user', '0'], /--max-calls-per-user needs a whole number from 1/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['audit', '--data', '/nonexistent/elicitkit'], /no opsdesk data in \/nonexistent\/elicitkit/],
  ])('%j is a usage error (exit 2) with a clear message', async (argv, message) => {
    // (--page-port is checked before the server starts, so nothing is served here.)
    const { io, err } = capture();
    expect(await main(argv, io)).toBe(2);
    expect(err.join('\n')).toMatch(message);
    expect(err.join('\n')).toMatch(/Run `elicitkit (serve|audit) --help` for its options\.|Commands: serve, /);
  });

  it('--http on a port in use: a clear error naming it, and the next start still shows the tokens (none were minted)', async () => {
    const data = tempDataDir();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const { io, err, out } = capture();
      expect(await main(['serve', '--http', String(port), '--data', data.dir], io)).toBe(1);
      expect(err.join('\n')).toContain(
        `opsdesk cannot listen on 127.0.0.1:${port}: EADDRINUSE (another process has it`,
      );
      expect(out.join('\n')).not.toMatch(/ek_/);
      const again = await serveHttpChild(data.dir);
      expect(Object.keys(again.tokens).sort()).toEqual(['alice', 'bob']);
    } finally {
      taken.close();
      data.remove();
    }
  });

  it("--http --new-tokens: a new token per user, printed once; the earlier ones stop working, a host's do not", async () => {
    const data = tempDataDir();
    try {
      const first = await serveHttpChild(data.dir);
      first.child.kill('SIGTERM');
      await once(first.child, 'exit');
      // A host acting through a token of its own (as the web app's chats do) on the same data.
      const host = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0, tokens: 'none' });
      const hostToken = await issueToken(host.opsdesk.store, 'alice');
      await host.close();

      const renewed = await serveHttpChild(data.dir, ['--new-tokens']);
      expect(renewed.out).toContain('New bearer tokens, shown this once');
      expect(Object.keys(renewed.tokens)).toEqual(['alice', 'bob']);
      for (const user of ['alice', 'bob']) expect(renewed.tokens[user]).not.toBe(first.tokens[user]);
      const status = (token: string | undefined) =>
        fetch(renewed.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        }).then((r) => r.status);
      expect(await status(first.tokens.alice)).toBe(401);
      expect(await status(first.tokens.bob)).toBe(401);
      const alice = await httpClient(renewed.url, renewed.tokens.alice ?? '', { revision: '2026-07-28' });
      expect((await callTool(alice.client, 'list_deployments', {})).status).toBe('done');
      await alice.client.close();
      expect(await status(hostToken)).not.toBe(401);
    } finally {
      data.remove();
    }
  }, 120_000);

  it('an unknown --user is refused at start', async () => {
    const data = tempDataDir();
    const child = spawn(process.execPath, nodeArgs(CLI, 'serve', '--stdio', '--data', data.dir, '--user', 'mallory'), {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(err).toMatch(/Unknown user "mallory". Known users: alice, bob/);
    data.remove();
  });
});

describe('elicitkit audit', () => {
  it('prints requests, responses and validations per call, answers redacted; --json has the three lists', async () => {
    const data = tempDataDir();
    const c = await stdioClient(data.dir, {
      revision: '2025-11-25',
      user: 'alice',
      script: [{ action: 'accept', content: { confirmed: true, ticket: 'REL-1002' } }],
    });
    expect((await callTool(c.client, 'deploy_service', { service: 'order-service', env: 'prod' })).status).toBe(
      'invalid',
    );
    await c.close();
    const text = capture();
    expect(await main(['audit', '--data', data.dir], text.io)).toBe(0);
    const printed = text.out.join('\n');
    expect(printed).toMatch(/call [0-9a-f-]{36} by alice/);
    expect(printed).toMatch(/request {5}deploy_service\/prod \[form, 2025-11-25\] Deploy order-service/);
    expect(printed).toMatch(
      /response {4}deploy_service\/prod accept \{"confirmed":true,"ticket":"\[redacted: 8 chars\]"\}/,
    );
    expect(printed).toMatch(
      /validation {2}deploy_service\/prod failed: Release ticket \[redacted: 8 chars\] is pending, not approved\./,
    );
    // What the person typed is masked in the check's sentence as in the answer.
    expect(printed).not.toContain('REL-1002');
    const json = capture();
    expect(await main(['audit', '--data', data.dir, '--json'], json.io)).toBe(0);
    const trail = JSON.parse(json.out.join('\n'));
    expect(Object.keys(trail)).toEqual(['requests', 'responses', 'validations', 'violations', 'refusals']);
    expect(trail.requests[0]).toMatchObject({ client: null, adaptation: null });
    expect(trail.validations[0]).toMatchObject({
      tool: 'deploy_service',
      question: 'prod',
      ok: false,
      username: 'alice',
    });
    data.remove();
  });
});

describe('elicitkit audit, for a known client', () => {
  it("names the client and its form's adaptation, in text and in --json", async () => {
    const data = tempDataDir();
    const trae = await stdioClient(data.dir, {
      revision: '2025-11-25',
      user: 'alice',
      clientName: 'Trae',
      script: [{ action: 'accept', content: { confirmed: 'yes', ticket: 'REL-1001' } }],
    });
    expect((await callTool(trae.client, 'deploy_service', { service: 'order-service', env: 'prod' })).status).toBe(
      'done',
    );
    await trae.close();
    const text = capture();
    expect(await main(['audit', '--data', data.dir], text.io)).toBe(0);
    const printed = text.out.join('\n');
    expect(printed).toMatch(
      /request {5}deploy_service\/prod \[form, 2025-11-25, client trae \(booleanAsChoice: confirmed\)\] Deploy/,
    );
    const json = capture();
    expect(await main(['audit', '--data', data.dir, '--json'], json.io)).toBe(0);
    const requests = JSON.parse(json.out.join('\n')).requests as Record<string, unknown>[];
    expect(requests.map((r) => [r.username, r.client, r.adaptation])).toEqual([
      ['alice', 'trae', { quirk: 'booleanAsChoice', fields: ['confirmed'] }],
    ]);
    data.remove();
  });
});

describe('ELICITKIT_PAGE_PORT', () => {
  it('is checked like --page-port, and named in the error', async () => {
    const saved = process.env.ELICITKIT_PAGE_PORT;
    process.env.ELICITKIT_PAGE_PORT = 'eighty';
    try {
      const { io, err } = capture();
      expect(await main(['serve', '--stdio'], io)).toBe(2);
      expect(err.join('\n')).toContain('ELICITKIT_PAGE_PORT needs a whole number from 0 to 65535, not "eighty"');
    } finally {
      if (saved === undefined) delete process.env.ELICITKIT_PAGE_PORT;
      else process.env.ELICITKIT_PAGE_PORT = saved;
    }
  });
});
