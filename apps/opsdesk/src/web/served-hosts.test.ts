/**
 * `serve --http` reached by other names than loopback: bound to every interface (`0.0.0.0`) with
 * the hosts clients use named (`allowedHosts`, `ELICITKIT_ALLOWED_HOSTS`), its printed URL, its
 * loopback address and its password links all work and any other Host is refused; with no host
 * named it does not start. Real sockets, reached at this machine's own address.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { accept, pendingOf, wireRound } from '../../../../test/support/modern-wire.js';
import { freePort } from '../../../../test/support/service.js';
import { setPasswordOnPage } from '../../test/cases.js';
import { CLI, httpClient, nodeArgs, peek, tempDataDir, tokenOf } from '../../test/harness.js';
import { rawRequest } from '../../test/raw-http.js';
import { type HttpServing, serveHttp } from '../serve-http.js';

/**
 * An address of this machine that is not a loopback name: its first external IPv4 address, else
 * 127.0.0.2 (on Linux every 127/8 address reaches the loopback interface, yet no check calls it localhost).
 */
function thisMachine(): string {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a?.family === 'IPv4' && !a.internal);
  return external?.address ?? '127.0.0.2';
}

/** Whether something accepts connections on the port right now. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const LIST = { name: 'list_deployments', arguments: {} };
const ADDRESS = thisMachine();

describe('serve --http on every interface, with the host clients use named', () => {
  let data: ReturnType<typeof tempDataDir>;
  let served: HttpServing;
  beforeAll(async () => {
    data = tempDataDir();
    served = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0, host: '0.0.0.0', allowedHosts: [ADDRESS] });
  });
  afterAll(async () => {
    await served.close();
    data.remove();
  });

  it('prints a URL at that host (not 0.0.0.0) where a client works; 127.0.0.1 works, other hosts are refused', async () => {
    expect(served.url).toBe(`http://${ADDRESS}:${served.port}/mcp`);
    const conn = await httpClient(served.url, tokenOf(served, 'alice'), { revision: '2025-11-25' });
    try {
      expect((await callTool(conn.client, 'list_deployments', {})).status).toBe('done');
    } finally {
      await conn.close();
    }
    const headers = { authorization: `Bearer ${tokenOf(served, 'alice')}` };
    const local = await wireRound(`http://127.0.0.1:${served.port}/mcp`, LIST, { headers });
    expect(local.result?.structuredContent).toMatchObject({ status: 'done' });
    // Named hosts are added, not a door opened: a name nobody gave is still DNS rebinding.
    for (const path of ['/mcp', '/register/abcdefghijklmnopqrstuvwxyz']) {
      const foreign = await rawRequest(served.port, `GET ${path} HTTP/1.1\r\nHost: evil.example:${served.port}\r\n`);
      expect(foreign.status).toMatch(/^HTTP\/1\.1 403 /);
    }
  });

  it('serves the password page at that host: its Host passes the check (a 404 for no link, not a 403)', async () => {
    const page = await rawRequest(
      served.port,
      `GET /register/abcdefghijklmnopqrstuvwxyz HTTP/1.1\r\nHost: ${ADDRESS}:${served.port}\r\n`,
    );
    expect(page.status).toMatch(/^HTTP\/1\.1 404 /);
    expect(page.body).toContain('This link is not valid.');
  });
});

describe('serve --http on every interface: the password links', () => {
  // 127.0.0.2 is loopback to the URL rule (EK14: plain http only there) but not a localhost
  // name to the Host check, so the whole link is exercised; a remote host's link needs https.
  it('name the first named host, and the link sets the password', async () => {
    const data = tempDataDir();
    const served = await serveHttp({
      dataDir: data.dir,
      locale: 'en',
      port: 0,
      host: '0.0.0.0',
      allowedHosts: ['127.0.0.2', ADDRESS],
    });
    try {
      const h = { headers: { authorization: `Bearer ${await served.ownerToken('hostlinker')}` } };
      const call = { name: 'register_user', arguments: {} };
      const { requestState } = pendingOf(await wireRound(served.url, call, h));
      const content = { username: 'farhost', email: 'farhost@example.com', newsletter: false };
      const round = await wireRound(
        served.url,
        { ...call, inputResponses: { account: accept(content) }, requestState },
        h,
      );
      const link = (round.result as { inputRequests: { password: { params: { url: string } } } }).inputRequests.password
        .params.url;
      expect(link.startsWith(`http://127.0.0.2:${served.port}/register/`)).toBe(true);
      expect((await setPasswordOnPage(link)).status).toBe(200);
      expect(peek(data.dir, "SELECT 1 FROM users WHERE username = 'farhost'")).toHaveLength(1);
    } finally {
      await served.close();
      data.remove();
    }
  });
});

describe('serve --http bound to one address of this machine', () => {
  it('answers at that address, the URL it prints, with no host named', async () => {
    const data = tempDataDir();
    const served = await serveHttp({ dataDir: data.dir, locale: 'en', port: 0, host: ADDRESS });
    try {
      expect(served.url).toBe(`http://${ADDRESS}:${served.port}/mcp`);
      const headers = { authorization: `Bearer ${tokenOf(served, 'alice')}` };
      expect((await wireRound(served.url, LIST, { headers })).result?.structuredContent).toMatchObject({
        status: 'done',
      });
    } finally {
      await served.close();
      data.remove();
    }
  });
});

describe('serve --http refuses to start on every interface with no host named', () => {
  let data: ReturnType<typeof tempDataDir>;
  afterEach(() => data.remove());

  it.each(['0.0.0.0', '::'])('on %s: a clear error, nothing listening, nothing written', async (host) => {
    data = tempDataDir();
    const port = await freePort();
    await expect(serveHttp({ dataDir: data.dir, locale: 'en', port, host })).rejects.toThrow(
      `opsdesk would listen on every interface (${host}) but answer only requests for localhost: name the host(s) clients will use to reach it`,
    );
    expect(await listening(port)).toBe(false);
    expect(existsSync(join(data.dir, 'opsdesk.db'))).toBe(false);
  });

  it.each(['ops.example.com:7777', 'http://ops.example.com', '0.0.0.0', '*'])(
    'a named host that is no host clients can use (%s) is refused before anything starts',
    async (name) => {
      data = tempDataDir();
      const port = await freePort();
      await expect(
        serveHttp({ dataDir: data.dir, locale: 'en', port, host: '0.0.0.0', allowedHosts: [name] }),
      ).rejects.toThrow(`"${name}" is not a host clients can reach opsdesk at`);
      expect(await listening(port)).toBe(false);
    },
  );
});

/** `elicitkit serve --http 0 --host 0.0.0.0` from source, with `env`: its exit, or its URL once it serves. */
async function serveOnEveryInterface(
  dataDir: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; out: string; err: string; code: number | null }> {
  const base = { ...process.env };
  delete base.ELICITKIT_ALLOWED_HOSTS;
  const child = spawn(process.execPath, nodeArgs(CLI, 'serve', '--http', '0', '--host', '0.0.0.0', '--data', dataDir), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...base, ...env },
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const code = await new Promise<number | null>((resolve) => {
    child.stdout?.on('data', () => {
      if (/bob\s+ek_/.test(out)) resolve(null);
    });
    child.once('exit', (c) => resolve(c));
  });
  return { child, out, err, code };
}

describe('elicitkit serve --http --host 0.0.0.0', () => {
  let data: ReturnType<typeof tempDataDir>;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    child = undefined;
    data.remove();
  });

  it('serves at the host ELICITKIT_ALLOWED_HOSTS names first', async () => {
    data = tempDataDir();
    const run = await serveOnEveryInterface(data.dir, { ELICITKIT_ALLOWED_HOSTS: ` ${ADDRESS} , ops.example.com` });
    child = run.child;
    expect(run.code).toBeNull();
    const url = /serving (\S+)/.exec(run.out)?.[1] ?? '';
    expect(url).toMatch(new RegExp(`^http://${ADDRESS.replaceAll('.', '\\.')}:\\d+/mcp$`));
    const token = /^\s+alice\s+(ek_\S+)$/m.exec(run.out)?.[1] ?? '';
    const round = await wireRound(url, LIST, { headers: { authorization: `Bearer ${token}` } });
    expect(round.result?.structuredContent).toMatchObject({ status: 'done' });
  }, 60_000);

  it('without ELICITKIT_ALLOWED_HOSTS: a usage error (exit 2) saying to name the hosts, before anything is written', async () => {
    data = tempDataDir();
    const run = await serveOnEveryInterface(data.dir, {});
    child = run.child;
    expect(run.code).toBe(2);
    expect(run.err).toContain('name the hosts clients use to reach it in ELICITKIT_ALLOWED_HOSTS');
    expect(readdirSync(data.dir)).toEqual([]);
    expect(run.out).toBe('');
  }, 60_000);
});
