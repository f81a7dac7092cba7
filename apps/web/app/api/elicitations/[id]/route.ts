import { MAX_ANSWER_LENGTH } from '@elicitkit/form';
import { answer, answerAfterEnd } from '../../../../lib/elicitations';
import { guardedChat, ownChatKey } from '../../../../lib/guard';
import { readJson } from '../../../../lib/http';
import { requestLocale } from '../../../../lib/locale';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * Anything bigger is refused unread: an answer the form takes (at most `MAX_ANSWER_LENGTH`
 * characters of JSON, each at most 3 bytes of UTF-8) with its envelope (`action`, `applyDefaults`)
 * always fits, so the form, not this, says when one is too long, at its field.
 */
const MAX_ANSWER_BYTES = 3 * MAX_ANSWER_LENGTH + 4096;

/**
 * Answers one question. Bound to the chat that owns it (session cookie + CSRF header), validated
 * against the question's form on the server: 404 unknown, 403 someone else's, 409 already
 * answered, 410 expired or withdrawn, 400 invalid, 413 too large. Once the chat has ended its page
 * is still told 410 for a question the end withdrew; anyone else gets 403, as for no chat.
 */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  // The page's language (its header, else the browser's): what it shows of a refusal is in it.
  const locale = requestLocale(request);
  const { chat, refused } = await guardedChat(request, 403);
  if (refused) {
    const key = ownChatKey(request);
    const ended = key === undefined ? undefined : await answerAfterEnd(key, id, locale);
    return ended ? Response.json(ended.body, { status: ended.status }) : refused;
  }
  // Typed by a person (or a script): sent exactly as written, or refused naming where.
  const body = await readJson(request, MAX_ANSWER_BYTES, { locale, typed: true });
  if (!body.ok) return Response.json({ error: body.error }, { status: body.status });
  const result = await answer(chat, id, body.value, locale);
  return Response.json(result.body, { status: result.status });
}
