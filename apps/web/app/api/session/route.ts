import { config } from '../../../lib/config';
import { DEMO_USERS } from '../../../lib/identity';
import { chatCookie, chatOf, createChat } from '../../../lib/state';
import type { ChatInfo } from '../../../lib/wire';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The browser's session with its chat: the chat is created on first visit (an HttpOnly,
 * SameSite=Strict session cookie names it), with the CSRF token answers must carry, and what the
 * page needs to know about the setup.
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
  const existing = chatOf(request);
  const chat = existing ?? createChat();
  const body: ChatInfo = {
    csrf: chat.csrf,
    lang,
    servers: servers.map((s) => s.name),
    model: model ? `${model.model} via ${model.baseURL}` : null,
    identity: servers.some((s) => s.kind === 'stdio' && s.bundled)
      ? { user: chat.user ?? null, choices: [...DEMO_USERS] }
      : null,
  };
  return Response.json(body, {
    headers: { 'cache-control': 'no-store', ...(existing ? {} : { 'set-cookie': chatCookie(chat) }) },
  });
}
