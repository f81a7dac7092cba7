/**
 * The server library on Bun and Deno (both installed from npm as dev dependencies): the built
 * package's `createHttpHandler().fetch` served by each runtime's own server (runtimes/serve.mjs),
 * called by the SDK's Node client on every revision — a question asked, answered, and the effect
 * run once — and what each runtime's server does differently: its streams' headers and first
 * bytes, bodies past the limit, a client gone mid-question, Bun's idle timeout, Deno's HTTP/2 over
 * TLS, and a 2026-07-28 round carried from one runtime to the other. A runtime whose binary is
 * missing is skipped with a printed line.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:http2';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { revisionOptions } from '@elicitkit/client';
import type { Revision } from '@elicitkit/form';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVE = join(ROOT, 'test/runtimes/serve.mjs');

const RUNTIMES = {
  bun: [join(ROOT, 'node_modules/.bin/bun'), SERVE],
  deno: [
    join(ROOT, 'node_modules/.bin/deno'),
    'run',
    '--no-prompt',
    '--allow-net',
    '--allow-read',
    '--allow-env',
    SERVE,
  ],
} as const;

/** openssl makes the certificate the HTTP/2 check serves with; without it that check is skipped. */
const openssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    console.log('runtimes.test: openssl is not installed; the HTTP/2 check is skipped');
    return false;
  }
})();

const REVISIONS: Revision[] = ['2025-06-18', '2025-11-25', '2026-07-28'];

/** The runtime's server (runtimes/serve.mjs) in a child process, with `env` added. */
async function serveOn(runtime: string, command: readonly string[], env: Record<string, string> = {}) {
  const [binary, ...args] = command as [string, ...string[]];
  const child: ChildProcess = spawn(binary, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening (\S+)/.exec(output);
      if (found) resolve(found[1] as string);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => reject(new Error(`${runtime} exited (${code}) before listening:\n${output}`)));
  });
  return { url, stop: () => child.kill() };
}

/** What the served handler holds: its open sessions, and how each question ended. */
async function stateOf(url: string): Promise<{ sessions: number; responses: Record<string, unknown>[] }> {
  return (await fetch(new URL('/state', url))).json() as Promise<{
    sessions: number;
    responses: Record<string, unknown>[];
  }>;
}

for (const [runtime, command] of Object.entries(RUNTIMES)) {
  const present = existsSync(command[0]);
  if (!present) console.log(`runtimes.test: ${runtime} is not installed (${command[0]}); its check is skipped`);

  describe.skipIf(!present)(`the server library on ${runtime}`, () => {
    let stop = () => {};
    let url = '';

    beforeAll(async () => {
      ({ url, stop } = await serveOn(runtime, command));
    }, 60_000);

    afterAll(() => {
      stop();
    });

    for (const revision of REVISIONS) {
      it(`asks, takes the answer and acts, for a ${revision} client`, async () => {
        const client = new Client(
          { name: 'runtime-check', version: '1' },
          { capabilities: { elicitation: { form: {} } }, ...revisionOptions(revision) },
        );
        const asked: string[] = [];
        client.setRequestHandler('elicitation/create', async (request) => {
          asked.push(String(request.params.message));
          return { action: 'accept', content: { env: 'prod' } };
        });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        try {
          const result = await client.callTool({ name: 'deploy', arguments: { service: 'api' } }, { timeout: 30_000 });
          expect(asked).toEqual(['Which environment should api go to?']);
          expect(result.structuredContent).toMatchObject({ status: 'done', env: 'prod' });
          expect(client.getNegotiatedProtocolVersion()).toBe(revision);
        } finally {
          await client.close();
        }
      });
    }

    it('refuses a 2026-07-28 round whose sealed state was changed', async () => {
      const client = new Client(
        { name: 'runtime-check', version: '1' },
        {
          capabilities: { elicitation: { form: {} } },
          ...revisionOptions('2026-07-28'),
          inputRequired: { autoFulfill: false },
        },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const call = (extra: Record<string, unknown>) =>
          client.request(
            { method: 'tools/call', params: { name: 'deploy', arguments: { service: 'api' }, ...extra } },
            { allowInputRequired: true, timeout: 30_000 },
          );
        const first = (await call({})) as { requestState?: string };
        expect(typeof first.requestState).toBe('string');
        const state = first.requestState as string;
        const forged = `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`;
        const answer = { inputResponses: { env: { action: 'accept', content: { env: 'prod' } } } };
        await expect(call({ ...answer, requestState: forged })).rejects.toThrow();
        const kept = (await call({ ...answer, requestState: state })) as { structuredContent?: unknown };
        expect(kept.structuredContent).toMatchObject({ status: 'done', env: 'prod' });
      } finally {
        await client.close();
      }
    });

    it('asks and acts once for each of many calls in flight at once on one session', async () => {
      const client = new Client({ name: 'busy', version: '1' }, { capabilities: { elicitation: { form: {} } } });
      let asked = 0;
      client.setRequestHandler('elicitation/create', async () => {
        asked++;
        return { action: 'accept', content: { env: 'dev' } };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            client.callTool({ name: 'deploy', arguments: { service: `s${i}` } }, { timeout: 30_000 }),
          ),
        );
        expect(asked).toBe(20);
        expect(results.map((r) => (r.structuredContent as { status?: string }).status)).toEqual(
          Array.from({ length: 20 }, () => 'done'),
        );
        const counts = results.map((r) => (r.structuredContent as { deployed: number }).deployed);
        expect(new Set(counts).size).toBe(20);
      } finally {
        await client.close();
      }
    });

    it('serves a GET stream open at once, with the headers an SSE stream needs', async () => {
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const init = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      });
      const session = init.headers.get('mcp-session-id') ?? '';
      await init.body?.cancel();
      const stream = new AbortController();
      try {
        const get = await fetch(url, {
          headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
          signal: stream.signal,
        });
        expect(get.status).toBe(200);
        expect(get.headers.get('content-type')).toMatch(/^text\/event-stream/);
        expect(get.headers.get('cache-control')).toContain('no-cache');
        const first = await (get.body as ReadableStream<Uint8Array>).getReader().read();
        expect(new TextDecoder().decode(first.value)).toMatch(/^:/);
      } finally {
        stream.abort();
        await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
      }
    });

    it('refuses a body past 4 MiB with 413, with or without its length declared', async () => {
      const target = new URL(url);
      const post = (declared: boolean) =>
        new Promise<number>((resolve, reject) => {
          const size = 5 * 1024 * 1024;
          const request = httpRequest(
            {
              host: target.hostname,
              port: target.port,
              path: target.pathname,
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                ...(declared ? { 'content-length': size } : { 'transfer-encoding': 'chunked' }),
              },
            },
            (response) => {
              response.resume();
              resolve(response.statusCode ?? 0);
            },
          );
          // The server may answer and close before the body is through: the answer is what counts.
          request.on('error', reject);
          const chunk = Buffer.alloc(64 * 1024, 0x20);
          let sent = 0;
          const write = () => {
            while (sent < size) {
              sent += chunk.length;
              if (!request.write(chunk)) return void request.once('drain', write);
            }
            request.end();
          };
          write();
        });
      expect(await post(false)).toBe(413);
      expect(await post(true)).toBe(413);
    });
  });

  describe.skipIf(!present)(`a client that goes away on ${runtime}`, () => {
    let stop = () => {};
    let url = '';

    beforeAll(async () => {
      ({ url, stop } = await serveOn(runtime, command, { ELICITKIT_RUNTIME_ABANDON_MS: '50' }));
    }, 60_000);

    afterAll(() => {
      stop();
    });

    it('in the middle of a question: the question ends as cancel (disconnected), and its session is closed', async () => {
      const client = new Client({ name: 'leaving', version: '1' }, { capabilities: { elicitation: { form: {} } } });
      let asked!: () => void;
      const wasAsked = new Promise<void>((resolve) => {
        asked = resolve;
      });
      client.setRequestHandler('elicitation/create', () => {
        asked();
        return new Promise(() => {});
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      void client.callTool({ name: 'deploy', arguments: { service: 'api' } }, { timeout: 30_000 }).catch(() => {});
      await wasAsked;
      expect((await stateOf(url)).sessions).toBe(1);
      await client.close(); // every request of the client aborted: no DELETE, no cancel
      let state = await stateOf(url);
      while (state.sessions > 0 || state.responses.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        state = await stateOf(url);
      }
      expect(state.responses).toMatchObject([{ key: 'env', action: 'cancel', reason: 'disconnected' }]);
    });
  });

  // Bun.serve ends a connection that sends nothing for `idleTimeout` seconds (10 by default; here
  // 5, which its timer's 4 s ticks make 4 to 8 — below 4 it ends at the next tick whatever is
  // sent): a question must wait as long as the person takes.
  describe.skipIf(!present || runtime !== 'bun')(`streams kept open past ${runtime}'s idle timeout`, () => {
    let stop = () => {};
    let url = '';

    beforeAll(async () => {
      ({ url, stop } = await serveOn(runtime, command, {
        ELICITKIT_RUNTIME_IDLE_S: '5',
        ELICITKIT_RUNTIME_KEEP_ALIVE_MS: '250',
      }));
    }, 60_000);

    afterAll(() => {
      stop();
    });

    it('a question answered after the host ended a quiet request still acts, once', async () => {
      const client = new Client({ name: 'slow-person', version: '1' }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler('elicitation/create', async () => {
        // Answered once the host has ended a request that sent nothing since the question came.
        await fetch(new URL('/hold', url)).catch(() => undefined);
        return { action: 'accept', content: { env: 'prod' } };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        // A call whose stream the host ended gets no result: it fails at this timeout.
        const result = await client.callTool({ name: 'deploy', arguments: { service: 'api' } }, { timeout: 15_000 });
        expect(result.structuredContent).toMatchObject({ status: 'done', env: 'prod' });
        expect((await stateOf(url)).responses).toMatchObject([{ key: 'env', action: 'accept' }]);
      } finally {
        await client.close();
      }
    });
  });

  // Over TLS a client that speaks HTTP/2 does (curl, browsers): the name it asks for travels as
  // `:authority`, and Deno hands the handler no Host header, only the request's URL.
  describe.skipIf(!present || runtime !== 'deno' || !openssl)(`HTTP/2 on ${runtime}`, () => {
    let stop = () => {};
    let url = '';
    let ca = '';

    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'runtimes-tls-'));
      const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
      execFileSync(
        'openssl',
        [
          ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost'],
          ...['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert],
        ],
        { stdio: 'ignore' },
      );
      ca = readFileSync(cert, 'utf8');
      ({ url, stop } = await serveOn(runtime, command, {
        ELICITKIT_RUNTIME_TLS_CERT: cert,
        ELICITKIT_RUNTIME_TLS_KEY: key,
      }));
    }, 60_000);

    afterAll(() => {
      stop();
    });

    it('serves a request that came with :authority and no Host header', async () => {
      const session = connect(new URL(url).origin, { ca });
      try {
        const post = (headers: Record<string, string>, body: unknown) =>
          new Promise<{ status: number; text: string }>((resolve, reject) => {
            const stream = session.request({
              ':method': 'POST',
              ':path': '/mcp',
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...headers,
            });
            let status = 0;
            let text = '';
            stream.on('response', (h) => {
              status = Number(h[':status']);
            });
            stream.on('data', (chunk: Buffer) => {
              text += chunk.toString();
            });
            stream.on('end', () => resolve({ status, text }));
            stream.on('error', reject);
            stream.end(JSON.stringify(body));
          });
        const opened = await post(
          {},
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h2', version: '1' } },
          },
        );
        expect(opened.status).toBe(200);
        expect(opened.text).toContain('"protocolVersion":"2025-11-25"');
        // A page of another name, over HTTP/2 as well, is still refused.
        const other = await post({ ':authority': 'evil.example' }, { jsonrpc: '2.0', id: 2, method: 'ping' });
        expect(other.status).toBe(403);
      } finally {
        session.close();
      }
    });
  });
}

// A 2026-07-28 call keeps nothing on the server between rounds: a round sealed by one runtime's
// instance continues on another's that has the same secret (runtimes/serve.mjs).
const [first, second] = Object.entries(RUNTIMES).filter(([, command]) => existsSync(command[0]));
describe.skipIf(!first || !second)('a 2026-07-28 call across runtimes', () => {
  it(`is asked on ${first?.[0]} and answered on ${second?.[0]}, done once`, async () => {
    const [asking, answering] = await Promise.all(
      [first, second].map((entry) => serveOn(entry?.[0] as string, entry?.[1] as readonly string[])),
    );
    const clientOf = async (url: string) => {
      const client = new Client(
        { name: 'across', version: '1' },
        {
          capabilities: { elicitation: { form: {} } },
          ...revisionOptions('2026-07-28'),
          inputRequired: { autoFulfill: false },
        },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    };
    const [a, b] = await Promise.all([clientOf(asking?.url as string), clientOf(answering?.url as string)]);
    try {
      const call = (client: Client, extra: Record<string, unknown>) =>
        client.request(
          { method: 'tools/call', params: { name: 'deploy', arguments: { service: 'api' }, ...extra } },
          { allowInputRequired: true, timeout: 30_000 },
        );
      const round = (await call(a, {})) as { requestState?: string };
      expect(typeof round.requestState).toBe('string');
      const answer = {
        inputResponses: { env: { action: 'accept', content: { env: 'prod' } } },
        requestState: round.requestState,
      };
      const result = (await call(b, answer)) as { structuredContent?: unknown };
      expect(result.structuredContent).toMatchObject({ status: 'done', env: 'prod', deployed: 1 });
    } finally {
      await Promise.all([a.close(), b.close()]);
      asking?.stop();
      answering?.stop();
    }
  }, 60_000);
});
