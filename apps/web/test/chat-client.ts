/**
 * `browser.ts`'s helpers bound to this app's own route handlers, for tests of one app. The
 * importing test sets the environment first: the routes read it once.
 */
import { expect } from 'vitest';
import * as browser from './browser';

export const { GET: getChatInfo } = await import('../app/api/chat/info/route');
export const { POST: postChat } = await import('../app/api/chat/route');
export const { POST: postAnswer } = await import('../app/api/elicitations/[id]/route');

const routes: browser.Routes = { getChatInfo, postChat, postAnswer };

export type Browser = browser.Browser;

export function newBrowser(address?: string): Promise<Browser> {
  return browser.newBrowser(routes, address);
}

/** Starts a chat turn and resolves with the stream reader once the first question is open. */
export function ask(b: Browser, text: string, headers: Record<string, string> = {}): Promise<browser.AskedQuestion> {
  return browser.ask(routes, b, text, headers);
}

export function answer(b: Browser, id: string, body: unknown, headers: Record<string, string> = {}) {
  return browser.answer(routes, b, id, body, headers);
}

export const { textOf } = browser;

/** Runs a chat turn that asks nothing and returns its stream's chunks once it has ended. */
export async function turn(
  b: Browser,
  text: string,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>[]> {
  const chunks = await browser.turn(routes, b, text, headers);
  expect(chunks[0]?.type, 'the chat route refused the turn').not.toBe('http');
  return chunks;
}

/**
 * The page's `fetch` for a test that renders it: a request to the app's API goes to the chat route
 * with `b`'s cookie, anything else to `fallback`; aborting the request errors the body the page
 * reads, as fetch does. `onChunk` sees each piece of a response's body as it is read.
 *
 * @example
 * vi.stubGlobal('fetch', pageFetch(b));
 */
export function pageFetch(
  b: Browser,
  options: { fallback?: typeof fetch; onChunk?: (chunk: Uint8Array) => void } = {},
): (url: string, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    if (options.fallback && (typeof url !== 'string' || !url.startsWith('/api/'))) return options.fallback(url, init);
    const headers = new Headers(init?.headers);
    headers.set('cookie', b.cookie);
    const signal = init?.signal ?? undefined;
    const response = await postChat(
      new Request(`http://localhost${url}`, {
        method: 'POST',
        headers,
        body: init?.body as string,
        ...(signal ? { signal } : {}),
      }),
    );
    if (!response.body) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        signal?.addEventListener('abort', () => {
          controller.error(new DOMException('The operation was aborted.', 'AbortError'));
          void reader.cancel().catch(() => undefined);
        });
      },
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else {
            options.onChunk?.(value);
            controller.enqueue(value);
          }
        } catch (error) {
          controller.error(error);
        }
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}
