import { foreignRequest } from './lib/hosts';

/** Refuses requests for a host name we do not serve (DNS rebinding) and cross-origin writes. */
export function proxy(request: Request): Response | undefined {
  const why = foreignRequest(request);
  // UTF-8 said: a refusal may be Chinese, which a browser guessing the charset draws as mojibake.
  return why === undefined
    ? undefined
    : new Response(why, { status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

export const config = {
  matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'],
};
