import { chatKey, csrfOf } from './chats';
import { REFUSED, requestLocale } from './locale';
import { type Chat, chatOf, cookieId } from './state';

/** A chat a state-changing request may act for, or the response that refuses it. */
export type Guarded = { chat: Chat; refused?: undefined } | { chat?: undefined; refused: Response };

/**
 * The chat behind a state-changing request: its session cookie must name a live chat and its
 * `x-elicitkit-csrf` header must carry that chat's token (another site can send the cookie, not
 * the header). `noSession` is the status without a chat: 401, or 403 where a missing chat must
 * look the same as someone else's (the answer route).
 * @example const { chat, refused } = await guardedChat(request); if (refused) return refused;
 */
export async function guardedChat(request: Request, noSession: 401 | 403 = 401): Promise<Guarded> {
  const chat = await chatOf(request);
  // In the page's language: the page shows it (a turn's error, a note).
  const say = REFUSED[requestLocale(request)];
  // The same words whatever the request was for (they tell nothing of the question), in its language.
  if (!chat) return { refused: Response.json({ error: say.noSession }, { status: noSession }) };
  if (request.headers.get('x-elicitkit-csrf') !== chat.csrf)
    return { refused: Response.json({ error: say.wrongToken }, { status: 403 }) };
  return { chat };
}

/**
 * The key (`chatKey`) of the chat a request's cookie names, open or ended, when its CSRF header is
 * that chat's token: the request comes from the chat's own page (an ended chat's id is as secret
 * as an open one's), so it may be told what became of that chat's own questions.
 * @example const key = ownChatKey(request); if (key) await registry.get(id); // owner === key?
 */
export function ownChatKey(request: Request): string | undefined {
  const id = cookieId(request);
  if (id === undefined || request.headers.get('x-elicitkit-csrf') !== csrfOf(id)) return undefined;
  return chatKey(id);
}
