/**
 * Two replicas of the web app sharing one Redis, as behind a round-robin balancer without
 * sticky sessions: the chat stream is held by one replica and every answer lands on the other.
 * Each replica is a child process serving the app's route handlers over loopback HTTP
 * (`replica.ts`); Redis is a real `redis-server`. Nothing is mocked.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../../test/support/redis-server.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..', '..');

interface Replica {
  url: string;
  child: ChildProcess;
}

let redis: TestRedis;
let data: string;
let a: Replica;
let b: Replica;

async function startReplica(env: Record<string, string>): Promise<Replica> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@elicitkit/source', join(HERE, 'replica.ts')],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const match = /listening (\d+)/.exec(out);
      if (match) resolve(match[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`replica exited with ${code}: ${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

async function stopReplica(replica: Replica | undefined): Promise<void> {
  if (!replica || replica.child.exitCode !== null) return;
  const exited = new Promise((resolve) => replica.child.once('exit', resolve));
  replica.child.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  redis = await startRedis();
  data = mkdtempSync(join(tmpdir(), 'elicitkit-web-replicas-'));
  const env = {
    REDIS_URL: redis.url,
    ELICITKIT_DATA: data,
    ELICITKIT_QUESTION_TIMEOUT_MS: '60000',
    ELICITKIT_MAX_CHATS_PER_ADDRESS: '3',
  };
  a = await startReplica(env);
  // The first replica seeds the data directory before the second one opens it.
  const warm = await session(a);
  expect((await fetch(`${a.url}/api/tools`, { headers: { cookie: warm.cookie } })).status).toBe(200);
  await close(a, warm);
  b = await startReplica(env);
}, 120_000);

afterAll(async () => {
  await Promise.all([stopReplica(a), stopReplica(b)]);
  await redis?.stop();
  if (data) rmSync(data, { recursive: true, force: true });
});

interface Browser {
  cookie: string;
  csrf: string;
}

async function session(replica: Replica, cookie?: string): Promise<Browser> {
  const response = await fetch(`${replica.url}/api/session`, { headers: cookie ? { cookie } : {} });
  if (response.status !== 200) throw Object.assign(new Error(`session: ${response.status}`), { response });
  const set = (response.headers.get('set-cookie') ?? '').split(';')[0];
  const { csrf } = (await response.json()) as { csrf: string };
  return { cookie: set || (cookie ?? ''), csrf };
}

function close(replica: Replica, browser: Browser, csrf = browser.csrf): Promise<Response> {
  return fetch(`${replica.url}/api/session/close`, {
    method: 'POST',
    headers: { cookie: browser.cookie, 'content-type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify({ csrf }),
  });
}

function answer(replica: Replica, browser: Browser, id: string, body: unknown): Promise<Response> {
  return fetch(`${replica.url}/api/elicitations/${id}`, {
    method: 'POST',
    headers: { cookie: browser.cookie, 'x-elicitkit-csrf': browser.csrf, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Starts a turn on `replica`; resolves with each open question as it comes, and the whole stream. */
async function turn(replica: Replica, browser: Browser, text: string) {
  const response = await fetch(`${replica.url}/api/chat`, {
    method: 'POST',
    headers: { cookie: browser.cookie, 'x-elicitkit-csrf': browser.csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text }] }] }),
  });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const chunks: Record<string, unknown>[] = [];
  let buffer = '';
  let done = false;
  const pull = async (): Promise<boolean> => {
    const next = await reader.read();
    if (next.done) return false;
    buffer += decoder.decode(next.value, { stream: true });
    for (let cut = buffer.indexOf('\n\n'); cut !== -1; cut = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, cut).replace(/^data: /, '');
      buffer = buffer.slice(cut + 2);
      if (event && event !== '[DONE]') chunks.push(JSON.parse(event) as Record<string, unknown>);
    }
    return true;
  };
  const seen = new Set<string>();
  return {
    chunks,
    /** The next question opened in the stream. */
    async question(): Promise<{ id: string; prompt: Record<string, unknown> }> {
      for (;;) {
        const open = chunks.find(
          (c) =>
            c.type === 'data-elicitation' &&
            (c.data as { status: string }).status === 'open' &&
            !seen.has(String(c.id)),
        );
        if (open) {
          seen.add(String(open.id));
          return { id: String(open.id), prompt: (open.data as { prompt: Record<string, unknown> }).prompt };
        }
        if (done || !(await pull())) throw new Error(`no more questions: ${JSON.stringify(chunks)}`);
      }
    },
    async end(): Promise<Record<string, unknown>[]> {
      while (!done && (await pull()));
      done = true;
      return chunks;
    },
  };
}

const output = (chunks: Record<string, unknown>[]) =>
  chunks.find((c) => c.type === 'tool-output-available' || c.type === 'tool-output-error');

describe('two web replicas, one Redis', () => {
  it('runs a production deploy whose every answer lands on the replica not holding the stream', async () => {
    const browser = await session(a);
    const stream = await turn(a, browser, '/deploy_service service=order-service');
    const env = await stream.question();
    expect(env.prompt).toMatchObject({ mode: 'form' });
    expect((await answer(b, browser, env.id, { action: 'accept', content: { env: 'prod' } })).status).toBe(200);
    const prod = await stream.question();
    expect(
      (await answer(b, browser, prod.id, { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } }))
        .status,
    ).toBe(200);
    const chunks = await stream.end();
    expect(output(chunks)).toMatchObject({ output: { status: 'done', text: expect.stringContaining('prod') } });
    // Both questions are settled in the stream A holds, and a replay on either replica is refused.
    const settled = chunks.filter(
      (c) => c.type === 'data-elicitation' && (c.data as { status: string }).status === 'answered',
    );
    expect(settled.map((c) => c.id)).toEqual([env.id, prod.id]);
    expect((await answer(a, browser, prod.id, { action: 'decline' })).status).toBe(409);
    expect((await answer(b, browser, prod.id, { action: 'decline' })).status).toBe(409);
    await close(b, browser);
  });

  it('binds questions to their chat on every replica, and validates there', async () => {
    const owner = await session(a);
    const stranger = await session(b);
    const stream = await turn(a, owner, '/deploy_service service=user-service');
    const q = await stream.question();
    expect((await answer(b, stranger, q.id, { action: 'decline' })).status).toBe(403);
    expect((await answer(b, { ...owner, csrf: stranger.csrf }, q.id, { action: 'decline' })).status).toBe(403);
    const invalid = await answer(b, owner, q.id, { action: 'accept', content: { env: 'qa' } });
    expect(invalid.status).toBe(400);
    expect((await answer(b, owner, 'no-such-question', { action: 'decline' })).status).toBe(404);
    expect((await answer(b, owner, q.id, { action: 'cancel' })).status).toBe(200);
    expect(output(await stream.end())).toMatchObject({ output: { status: 'cancelled' } });
    await close(a, owner);
    await close(a, stranger);
  });

  it('closes a chat from the other replica: its question, streamed by the first, is withdrawn', async () => {
    const browser = await session(a);
    const stream = await turn(a, browser, '/deploy_service service=search-service');
    const q = await stream.question();
    expect((await close(b, browser, 'forged')).status).toBe(403);
    expect((await close(b, browser)).status).toBe(204);
    const chunks = await stream.end();
    expect(chunks.filter((c) => c.type === 'data-elicitation').at(-1)).toMatchObject({ data: { status: 'withdrawn' } });
    expect((await answer(a, browser, q.id, { action: 'decline' })).status).toBe(403);
    expect((await fetch(`${a.url}/api/tools`, { headers: { cookie: browser.cookie } })).status).toBe(401);
  });

  it('counts an address’s chats across replicas', async () => {
    const open = [await session(a), await session(b), await session(a)];
    for (const replica of [a, b]) {
      const refused = await fetch(`${replica.url}/api/session`);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: string }).error).toContain('at most 3');
    }
    expect((await close(b, open[0] as Browser)).status).toBe(204);
    open.push(await session(b));
    for (const browser of open.slice(1)) await close(a, browser);
  });
});
