import { createUIMessageStreamResponse, type UIMessage } from 'ai';
import { chatStream } from '../../../lib/chat';
import { guardedChat } from '../../../lib/guard';
import { readJson } from '../../../lib/http';
import { requestLocale } from '../../../lib/locale';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
export const maxDuration = 900;

/** One chat turn, streamed; tool questions arrive in the same stream as `data-elicitation` parts. */
export async function POST(request: Request): Promise<Response> {
  const { chat, refused } = await guardedChat(request);
  if (refused) return refused;
  if (chat.writer) return Response.json({ error: 'A turn is already running in this chat.' }, { status: 409 });
  const locale = requestLocale(request);
  const body = await readJson(request, 2 * 1024 * 1024);
  if (!body.ok) return Response.json({ error: body.error }, { status: body.status });
  const messages = (body.value as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return Response.json({ error: '"messages" must be an array.' }, { status: 400 });
  return createUIMessageStreamResponse({
    stream: chatStream(chat, messages as UIMessage[], request.signal, locale),
  });
}
