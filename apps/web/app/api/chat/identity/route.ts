import type { ChatRecord } from '../../../../lib/chats';
import { config } from '../../../../lib/config';
import { guardedChat } from '../../../../lib/guard';
import { readJson } from '../../../../lib/http';
import { isDemoUser } from '../../../../lib/identity';
import { REFUSED, requestLocale } from '../../../../lib/locale';
import { chatCookies, endTurn, state, switchChatUser, takeTurn } from '../../../../lib/state';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The demo identity picker: `{"user": "alice" | "bob" | null}` (null: the local owner). A change
 * is a new chat (`switchChatUser`): the response sets its cookie and carries its CSRF token
 * (`{user, csrf}`), the page starts a fresh conversation, and the old chat is closed — its
 * questions withdrawn, its cookie and token refused from then on — so nothing of one identity's
 * chat is read or answered as the next. Its next call reaches the app's opsdesk with the chosen
 * user's token. A demo, not authentication; refused while a turn is running, on this instance or
 * another (its questions belong to the old identity). The change holds the chat's turn, so no
 * turn starts during it.
 */
export async function POST(request: Request): Promise<Response> {
  const { chat, refused } = await guardedChat(request);
  if (refused) return refused;
  // The page's language: it shows a refusal as a note.
  const say = REFUSED[requestLocale(request)];
  if (!config().servers.some((s) => s.kind === 'opsdesk'))
    return Response.json({ error: say.noOpsdesk }, { status: 404 });
  const body = await readJson(request, 1024, { locale: requestLocale(request) });
  if (!body.ok) return Response.json({ error: body.error }, { status: body.status });
  const user = (body.value as { user?: unknown } | null)?.user;
  if (user !== null && !isDemoUser(user)) return Response.json({ error: say.badUser }, { status: 400 });
  // The identity it has already: nothing changes, and the page keeps its conversation.
  if ((user ?? 'owner') === chat.user)
    return Response.json({ user, csrf: chat.csrf }, { headers: { 'cache-control': 'no-store' } });
  if (!(await takeTurn(chat))) return Response.json({ error: say.turnRunning }, { status: 409 });
  let next: ChatRecord | undefined;
  try {
    next = await switchChatUser(chat, user ?? 'owner');
  } finally {
    await endTurn(chat);
  }
  if (!next) return Response.json({ error: say.noSession }, { status: 401 });
  // The page that asked shows the new chat: counted and named there, as a page that loads it is.
  const page = (await state().chats.visit(next.id)) ?? '';
  const headers = new Headers({ 'cache-control': 'no-store' });
  for (const cookie of chatCookies(next, request)) headers.append('set-cookie', cookie);
  return Response.json({ user, csrf: next.csrf, page }, { headers });
}
