/**
 * What opsdesk's HTTP listeners (`serve --http`, and the password page under stdio) answer when
 * a request cannot be served: a request no URL can hold is the client's 400; an error nothing
 * answered is a generic JSON-RPC internal error, its detail only in the operator's log.
 */
import type { ServerResponse } from 'node:http';
import { INTERNAL_ERROR } from '@modelcontextprotocol/server';

export const INTERNAL_ERROR_BODY = JSON.stringify({
  jsonrpc: '2.0',
  error: { code: INTERNAL_ERROR, message: 'Internal server error' },
  id: null,
});

/** A request target no URL can hold (`GET http://[`): 400, before anything reads it. */
export function badRequest(res: ServerResponse): void {
  res.writeHead(400, { 'content-type': 'text/plain', 'content-length': 11, connection: 'close' }).end('Bad request');
}

export function pathOf(url: string | undefined): string | undefined {
  try {
    return new URL(url ?? '/', 'http://x').pathname;
  } catch {
    return undefined;
  }
}

/** Where an error happened, for the log: the route, never a password page's token. */
export function routeName(url: string | undefined): string {
  const path = pathOf(url);
  if (path === undefined) return '(unparsable URL)';
  return path.startsWith('/register/') ? '/register/…' : path === '/mcp' ? '/mcp' : '(other path)';
}

export function logError(error: unknown, where: string): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`opsdesk: internal error on ${where}: ${detail}\n`);
}

/** The last resort: a generic internal error, unless a response already started. */
export function internalError(res: ServerResponse): void {
  if (!res.headersSent)
    res.writeHead(500, { 'content-type': 'application/json', 'content-length': INTERNAL_ERROR_BODY.length });
  res.end(INTERNAL_ERROR_BODY);
}

/** Whether a request's Host header can make the URL a page request is built from. */
export function hostParses(host: string | undefined): boolean {
  return URL.canParse(`http://${host ?? ''}/`);
}
