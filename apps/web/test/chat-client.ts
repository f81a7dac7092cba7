/**
 * A browser for route tests: a session from GET /api/session, chat turns through POST /api/chat
 * read as the UI message stream, answers through POST /api/elicitations/{id}. The importing test
 * sets the environment first: the routes read it once.
 */
import { expect } from 'vitest';

export const { GET: getSession } = await import('../app/api/session/route');
export const { POST: postChat } = await import('../app/api/chat/route');
export const { POST: postAnswer } = await import('../app/api/elicitations/[id]/route');

export interface Browser {
  cookie: string;
  csrf: string;
}

export async function newBrowser(): Promise<Browser> {
  const response = await getSession(new Request('http://localhost/api/session'));
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const { csrf } = (await response.json()) as { csrf: string };
  return { cookie, csrf };
}

/** Starts a chat turn and resolves with the stream reader once the first question is open. */
export async function ask(
  b: Browser,
  text: string,
  headers: Record<string, string> = {},
): Promise<{ id: string; data: Record<string, unknown>; rest: Promise<unknown[]> }> {
  const response = await postChat(
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
  const chunks: unknown[] = [];
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

export function answer(b: Browser, id: string, body: unknown, headers: Record<string, string> = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return postAnswer(
    new Request(`http://localhost/api/elicitations/${id}`, {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json', ...headers },
      body: raw,
    }),
    { params: Promise.resolve({ id }) },
  );
}

/** Runs a chat turn that asks nothing and returns its stream's chunks once it has ended. */
export async function turn(b: Browser, text: string): Promise<Record<string, unknown>[]> {
  const response = await postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text }] }] }),
    }),
  );
  expect(response.status).toBe(200);
  return (await response.text())
    .split('\n\n')
    .map((event) => event.replace(/^data: /, ''))
    .filter((json) => json !== '' && json !== '[DONE]')
    .map((json) => JSON.parse(json) as Record<string, unknown>);
}
