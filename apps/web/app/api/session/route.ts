import { config } from '../../../lib/config';
import { createSession, sessionCookie, sessionOf } from '../../../lib/state';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The browser's session: created on first visit (an HttpOnly, SameSite=Strict cookie), with the
 * CSRF token answers must carry, and what the page needs to know about the setup.
 */
export async function GET(request: Request): Promise<Response> {
  const existing = sessionOf(request);
  const session = existing ?? createSession();
  const { model, servers, lang } = config();
  const body = {
    csrf: session.csrf,
    lang,
    servers: servers.map((s) => s.name),
    model: model ? (model.kind === 'mock' ? 'mock model (tests)' : `${model.model} via ${model.baseURL}`) : null,
  };
  return Response.json(body, {
    headers: { 'cache-control': 'no-store', ...(existing ? {} : { 'set-cookie': sessionCookie(session) }) },
  });
}
