/**
 * A browser over real HTTP, for tests that run the app (or replicas of it) as servers: its chat
 * cookie and CSRF token, and the calls the page makes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { adoptChat } from './browser';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Anything serving the app's routes at `url`. */
export interface Replica {
  url: string;
}

/** A web replica running as a child process (`replica.ts`). */
export interface ReplicaProcess extends Replica {
  child: ChildProcess;
}

/** Starts `replica.ts` with `env` added, once it is listening. */
export async function startReplica(env: Record<string, string>): Promise<ReplicaProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@elicitkit/source', join(HERE, 'replica.ts')],
    { cwd: join(HERE, '..', '..', '..'), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
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

/** SIGTERM, and wait for the replica to exit. */
export async function stopReplica(replica: ReplicaProcess | undefined): Promise<void> {
  if (!replica || replica.child.exitCode !== null) return;
  const exited = new Promise((resolve) => replica.child.once('exit', resolve));
  replica.child.kill('SIGTERM');
  await exited;
}

export interface Browser {
  cookie: string;
  csrf: string;
  /** The page's name in its chat (`ChatInfo.page`), sent with its beacon. */
  page: string;
}

/** Opens the chat on `replica` (`GET /api/chat/info`), or finds the one `cookie` names. */
export async function openChat(replica: Replica, cookie?: string): Promise<Browser> {
  const response = await fetch(`${replica.url}/api/chat/info`, { headers: cookie ? { cookie } : {} });
  if (response.status !== 200) throw Object.assign(new Error(`chat: ${response.status}`), { response });
  const set = (response.headers.get('set-cookie') ?? '').split(';')[0];
  const { csrf, page } = (await response.json()) as { csrf: string; page: string };
  return { cookie: set || (cookie ?? ''), csrf, page };
}

export function close(replica: Replica, browser: Browser, csrf = browser.csrf): Promise<Response> {
  return fetch(`${replica.url}/api/chat/close`, {
    method: 'POST',
    headers: { cookie: browser.cookie, 'content-type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify({ csrf, page: browser.page }),
  });
}

export function answer(replica: Replica, browser: Browser, id: string, body: unknown): Promise<Response> {
  return fetch(`${replica.url}/api/elicitations/${id}`, {
    method: 'POST',
    headers: { cookie: browser.cookie, 'x-elicitkit-csrf': browser.csrf, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/**
 * The demo identity picker (`POST /api/chat/identity`): `user` is "alice", "bob" or null. A change is
 * a new chat: on 200 the browser holds it (its cookie and token), as the page does.
 */
export async function identity(replica: Replica, browser: Browser, user: string | null): Promise<Response> {
  const response = await fetch(`${replica.url}/api/chat/identity`, {
    method: 'POST',
    headers: { cookie: browser.cookie, 'x-elicitkit-csrf': browser.csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ user }),
  });
  return adoptChat(browser, response);
}

/** Posts a turn (`POST /api/chat`) and returns the response as it is; `signal` drops its connection. */
export function postTurn(replica: Replica, browser: Browser, text: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${replica.url}/api/chat`, {
    method: 'POST',
    headers: { cookie: browser.cookie, 'x-elicitkit-csrf': browser.csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text }] }] }),
    ...(signal ? { signal } : {}),
  });
}

/** Starts a turn on `replica`; resolves with each open question as it comes, and the whole stream. */
export async function turn(replica: Replica, browser: Browser, text: string, signal?: AbortSignal) {
  const response = await postTurn(replica, browser, text, signal);
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

export const output = (chunks: Record<string, unknown>[]) =>
  chunks.find((c) => c.type === 'tool-output-available' || c.type === 'tool-output-error');
