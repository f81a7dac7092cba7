import type { IncomingMessage } from 'node:http';
import type { Locale } from '@elicitkit/server';
import { toWebRequest } from '@modelcontextprotocol/node';
import { page } from './password-page.js';

/** The most a request to the password page may send (its form is a few hundred bytes). */
const PAGE_BODY_LIMIT = 64 * 1024;

/**
 * A request to the password page as a Web `Request`, or — for a body over the page's limit — the
 * page's own 413 (not a 500 in the adapter's words), closing the connection it was not read from.
 * Other failures are thrown.
 */
export async function pageRequest(req: IncomingMessage, locale: Locale): Promise<Request | Response> {
  try {
    return await toWebRequest(req as Parameters<typeof toWebRequest>[0], undefined, {
      maxRequestBodySize: PAGE_BODY_LIMIT,
    });
  } catch (error) {
    if ((error as { status?: unknown }).status !== 413) throw error;
    const refused = page(locale, 'forbidden', 413);
    refused.headers.set('connection', 'close');
    return refused;
  }
}
