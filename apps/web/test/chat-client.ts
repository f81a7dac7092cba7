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
