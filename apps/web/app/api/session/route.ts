import { config } from '../../../lib/config';
import { createSession, sessionCookie, sessionOf } from '../../../lib/state';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The browser's session: created on first visit (an HttpOnly, SameSite=Strict cookie), with the
 * CSRF token answers must carry, and what the page needs to know about the setup.
 */
export async function GET(request: Request): Promise<Response> {
  let setup: ReturnType<typeof config>;
  try {
    setup = config();
  } catch (error) {
    // A bad environment is the operator's to fix: say exactly what, on the page.
    const message = error instanceof Error ? error.message : String(error);
    return Response.json({ error: `The configuration is invalid: ${message}` }, { status: 500 });
  }
  const { model, servers, lang } = setup;
  const existing = sessionOf(request);
  const session = existing ?? createSession();
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
