import { readJson } from '../../../../lib/http';
import { REFUSED, requestLocale } from '../../../../lib/locale';
import { chatOf, closeChat, closedChatCookies, state } from '../../../../lib/state';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * Closes the chat when its tab goes: the page sends `navigator.sendBeacon` on `pagehide`. A
 * beacon carries no custom header, so the CSRF token travels in the body (JSON, sent as
 * text/plain); with the chat cookie (SameSite=Strict) it proves the request is the chat's own
 * page, and `page` names which (`ChatInfo.page`). The chat is every tab's that loaded it (one
 * cookie): the last page's beacon closes it — its open questions are withdrawn and its MCP
 * sessions closed. 204 when done (or nothing to do), 403 when the cookie or the token is not the
 * chat's, 400 when no page is named.
 */
export async function POST(request: Request): Promise<Response> {
  const chat = await chatOf(request);
  // A beacon's answer is read by nobody; a script's is, in the browser's language (a beacon sends no custom header).
  const locale = requestLocale(request);
  if (!chat) return Response.json({ error: REFUSED[locale].noSession }, { status: 403 });
  const body = await readJson(request, 1024, { types: ['application/json', 'text/plain'], locale });
  if (!body.ok) return Response.json({ error: body.error }, { status: body.status });
  const { csrf, page } = (body.value ?? {}) as { csrf?: unknown; page?: unknown };
  if (typeof csrf !== 'string' || csrf !== chat.csrf)
    return Response.json({ error: REFUSED[locale].wrongToken }, { status: 403 });
  if (typeof page !== 'string' || page.length > 64)
    return Response.json({ error: REFUSED[locale].noPage }, { status: 400 });
  // Every tab of the browser shows this chat (they share its cookie): while another page still
  // shows it, it stays open, and so does the cookie that page needs. A page is counted gone once,
  // by its name: a second beacon from it (a page restored from the back/forward cache and
  // reloaded says goodbye twice), or one from a page never named, ends nothing.
  if ((await state().chats.leave(chat.key, page)) !== 0) return new Response(null, { status: 204 });
  await closeChat(chat.id);
  const headers = new Headers();
  for (const cookie of closedChatCookies(request)) headers.append('set-cookie', cookie);
  return new Response(null, { status: 204, headers });
}
