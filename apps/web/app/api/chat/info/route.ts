import { clientAddress } from '../../../../lib/address';
import { config, configProblem } from '../../../../lib/config';
import { DEMO_USERS } from '../../../../lib/identity';
import { REFUSED, requestLocale } from '../../../../lib/locale';
import { chatCookies, chatOf, createChat, state } from '../../../../lib/state';
import type { ChatInfo } from '../../../../lib/wire';

export const runtime = 'nodejs';

/** What a page's name looks like (`newPage`); anything else in the header is no name. */
const PAGE_NAME = /^[\w-]{1,64}$/;
export const dynamic = 'force-dynamic';

/**
 * The browser's chat: created on first visit (an HttpOnly, SameSite=Strict session cookie,
 * `ek_chat`, names it), with the CSRF token answers must carry, and what the page needs to know
 * about the setup. Chats are capped per client address and in all (429).
 */
export async function GET(request: Request): Promise<Response> {
  // A bad environment is the operator's to fix: say exactly what, on the page.
  const say = REFUSED[requestLocale(request)];
  const problem = configProblem(undefined, requestLocale(request));
  if (problem) return Response.json({ error: problem }, { status: 500 });
  const { model, servers, lang, chatIdleMs } = config();
  let chat: { id: string; csrf: string; user: string } | undefined = await chatOf(request);
  // Every page of the chat (a second tab, a reload before the old page's beacon) is counted and
  // named, so one page's leaving — said once, by its name — does not end the chat under the others.
  // A page that has its name already (the same document mounting again: a client-side navigation
  // back to the chat, React's strict mode) says it, and is that page, not one more.
  const known = request.headers.get('x-elicitkit-page') ?? '';
  let page = chat && (await state().chats.visit(chat.id, PAGE_NAME.test(known) ? known : undefined));
  if (page === undefined) chat = undefined;
  if (!chat) {
    const opened = await createChat(clientAddress(request));
    if (!opened.ok) {
      const error =
        opened.limit === 'address'
          ? say.tooManyFromAddress(opened.max, Math.round(chatIdleMs / 60_000))
          : say.serverFull(opened.max);
      const retry = String(Math.max(1, Math.ceil(Math.min(chatIdleMs, 300_000) / 1000)));
      return Response.json({ error }, { status: 429, headers: { 'retry-after': retry, 'cache-control': 'no-store' } });
    }
    chat = opened.chat;
    page = await state().chats.visit(chat.id);
  }
  const body: ChatInfo = {
    csrf: chat.csrf,
    page: page ?? '',
    lang,
    servers: servers.map((s) => s.name),
    model: model ? `${model.model} via ${model.baseURL}` : null,
    identity: servers.some((s) => s.kind === 'opsdesk')
      ? { user: chat.user === 'owner' ? null : chat.user, choices: [...DEMO_USERS] }
      : null,
  };
  const headers = new Headers({ 'cache-control': 'no-store' });
  // A new chat's cookie; for a chat found by the deprecated cookie name, the cookie renamed.
  for (const cookie of chatCookies(chat, request)) headers.append('set-cookie', cookie);
  return Response.json(body, { headers });
}
