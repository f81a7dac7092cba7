/**
 * The password page's one route, on whichever listener serves it: `serve --http`'s port (its
 * `/register/…` paths) and, under stdio, the page's own loopback port.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Locale } from '@elicitkit/server';
import { toWebRequest } from '@modelcontextprotocol/node';
import { hostHeaderValidationResponse, localhostAllowedHostnames } from '@modelcontextprotocol/server';
import { badRequest, hostParses } from './last-resort.js';
import type { PasswordLinks } from './password-links.js';
import { page } from './password-page.js';

/** The most a request to the password page may send (its form is a few hundred bytes). */
const PAGE_BODY_LIMIT = 64 * 1024;

/**
 * Answers one request to the password page: a Host no URL can hold is a 400 (the page's request
 * is built from it), a body over the page's limit the page's own 413, a Host not in `hosts`
 * (default: loopback names; `serve --http` passes the hosts it serves) is refused (DNS
 * rebinding), a link is answered by `links`, and anything else is a 404. Other failures are
 * thrown, for the listener's last resort.
 */
export async function servePasswordPage(
  req: IncomingMessage,
  res: ServerResponse,
  links: PasswordLinks,
  locale: Locale,
  hosts: string[] = localhostAllowedHostnames(),
): Promise<void> {
  if (!hostParses(req.headers.host)) return badRequest(res);
  const request = await pageRequest(req, locale);
  if (request instanceof Response) return send(res, request);
  const response = hostHeaderValidationResponse(request, hosts) ?? (await links.handle(request));
  if (response) return send(res, response);
  notFound(res);
}

/** What a listener answers for a path it does not serve. */
export function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
}

/**
 * A request to the password page as a Web `Request`, or — for a body over the page's limit — the
 * page's own 413 (not a 500 in the adapter's words), closing the connection it was not read from.
 * Other failures are thrown.
 */
async function pageRequest(req: IncomingMessage, locale: Locale): Promise<Request | Response> {
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

/** Writes a Web `Response` to a Node response. */
async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    headers[key] = key === 'set-cookie' ? response.headers.getSetCookie() : value;
  });
  res.writeHead(response.status, headers);
  res.end(Buffer.from(await response.arrayBuffer()));
}
