/**
 * A browser, as the route handlers see it: a chat cookie, its CSRF token, a client address. The
 * handlers are passed in, so the same helpers drive one app or two replicas of it.
 */
import { expect } from 'vitest';

export interface Routes {
  getChatInfo: (request: Request) => Promise<Response>;
  postChat: (request: Request) => Promise<Response>;
  postAnswer: (request: Request, context: { params: Promise<{ id: string }> }) => Promise<Response>;
  postClose?: (request: Request) => Promise<Response>;
}

export interface Browser {
  cookie: string;
  csrf: string;
  /** The page's name in its chat (`ChatInfo.page`), sent with its beacon. */
  page: string;
  address: string;
}

/** Opens the page's chat from `address` (`GET /api/chat/info`); the response when it is refused. */
export async function openChat(routes: Routes, address = '127.0.0.1'): Promise<Browser | Response> {
  const response = await routes.getChatInfo(
    new Request('http://localhost/api/chat/info', { headers: { 'x-forwarded-for': address } }),
  );
  if (response.status !== 200) return response;
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const { csrf, page } = (await response.json()) as { csrf: string; page: string };
  return { cookie, csrf, page, address };
}

export async function newBrowser(routes: Routes, address?: string): Promise<Browser> {
  const opened = await openChat(routes, address);
  if (opened instanceof Response) throw new Error(`no chat: ${opened.status} ${await opened.text()}`);
  return opened;
}

export interface AskedQuestion {
  id: string;
  data: Record<string, unknown>;
  /** Every chunk of the stream once it ends. */
  rest: Promise<Record<string, unknown>[]>;
}

/** Starts a chat turn and resolves once the first question is open, the stream still being read. */
export async function ask(
  routes: Routes,
  b: Browser,
  text: string,
  headers: Record<string, string> = {},
): Promise<AskedQuestion> {
  const response = await routes.postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text }] }] }),
    }),
  );
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  const chunks: Record<string, unknown>[] = [];
  let buffer = '';
  const next = async (): Promise<Record<string, unknown> | undefined> => {
    for (;;) {
      const line = buffer.indexOf('\n\n');
      if (line !== -1) {
        const event = buffer.slice(0, line);
        buffer = buffer.slice(line + 2);
        const json = event.replace(/^data: /, '');
        if (json === '[DONE]') return undefined;
        const chunk = JSON.parse(json) as Record<string, unknown>;
        chunks.push(chunk);
        return chunk;
      }
      const read = await reader.read();
      if (read.done) return undefined;
      buffer += read.value;
    }
  };
  for (;;) {
    const chunk = await next();
    if (!chunk) throw new Error(`the stream ended without a question: ${JSON.stringify(chunks)}`);
    const d = chunk.data as Record<string, unknown> | undefined;
    if (chunk.type === 'data-elicitation' && d?.status === 'open') {
      const rest = (async () => {
        while (await next()) {}
        return chunks;
      })();
      return { id: String(d.id), data: d, rest };
    }
  }
}

/** Runs a turn to its end (a tool that asks nothing, or a refused call); `headers` beside the page's own. */
export async function turn(
  routes: Routes,
  b: Browser,
  text: string,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>[]> {
  const response = await routes.postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text }] }] }),
    }),
  );
  if (response.status !== 200) return [{ type: 'http', status: response.status }];
  const text_ = await response.text();
  return text_
    .split('\n\n')
    .map((e) => e.replace(/^data: /, ''))
    .filter((e) => e && e !== '[DONE]')
    .map((e) => JSON.parse(e) as Record<string, unknown>);
}

/** What a turn's chunks said: their text deltas, joined by `between`. */
export function textOf(chunks: Record<string, unknown>[], between = ''): string {
  return chunks
    .filter((c) => c.type === 'text-delta')
    .map((c) => c.delta)
    .join(between);
}

export function answer(routes: Routes, b: Browser, id: string, body: unknown, headers: Record<string, string> = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return routes.postAnswer(
    new Request(`http://localhost/api/elicitations/${id}`, {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json', ...headers },
      body: raw,
    }),
    { params: Promise.resolve({ id }) },
  );
}

/** What `navigator.sendBeacon(url, JSON.stringify({ csrf, page }))` sends on pagehide. */
export function beacon(
  routes: Routes,
  b: Browser,
  csrf = b.csrf,
  cookie = b.cookie,
  /** `null`: none named (a page loaded before pages had names). */
  page: string | null = b.page,
): Promise<Response> {
  if (!routes.postClose) throw new Error('no close route');
  return routes.postClose(
    new Request('http://localhost/api/chat/close', {
      method: 'POST',
      headers: { cookie, 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify(page === null ? { csrf } : { csrf, page }),
    }),
  );
}

/** The tool output chunk of a finished stream. */
export function toolOutput(chunks: Record<string, unknown>[]): Record<string, unknown> | undefined {
  return chunks.find((c) => c.type === 'tool-output-available' || c.type === 'tool-output-error');
}

/**
 * After a change of identity (`POST /api/chat/identity`, 200): the browser now holds the new chat
 * the response names (its `set-cookie`, its body's `csrf`), as the page does. Returns `response`.
 */
export async function adoptChat(
  b: { cookie: string; csrf: string; page?: string },
  response: Response,
): Promise<Response> {
  if (response.status !== 200) return response;
  const set = response.headers.getSetCookie()[0]?.split(';')[0];
  const { csrf, page } = (await response.clone().json()) as { csrf?: string; page?: string };
  if (set) b.cookie = set;
  if (csrf) b.csrf = csrf;
  if (csrf && page !== undefined) b.page = page;
  return response;
}
