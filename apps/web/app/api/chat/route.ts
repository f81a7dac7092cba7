import type { UIMessage } from 'ai';
import { chatResponse } from '../../../lib/chat';
import { guardedChat } from '../../../lib/guard';
import { readJson } from '../../../lib/http';
import { REFUSED, requestLocale } from '../../../lib/locale';
import { endTurn, takeTurn } from '../../../lib/state';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
export const maxDuration = 900;

/** One chat turn, streamed; tool questions arrive in the same stream as `data-elicitation` parts. */
export async function POST(request: Request): Promise<Response> {
  const { chat, refused } = await guardedChat(request);
  if (refused) return refused;
  // Of two turns posted at once, here or on another instance (Redis), the second is refused.
  if (!(await takeTurn(chat)))
    return Response.json({ error: REFUSED[requestLocale(request)].turnRunning }, { status: 409 });
  let started = false;
  try {
    const locale = requestLocale(request);
    const body = await readJson(request, 2 * 1024 * 1024, { locale });
    if (!body.ok) return Response.json({ error: body.error }, { status: body.status });
    const messages = isObject(body.value) ? body.value.messages : undefined;
    if (!Array.isArray(messages))
      return Response.json({ error: 'The body must be an object whose "messages" is an array.' }, { status: 400 });
    // Read before anything runs: a null message or part was a TypeError's words in the turn's stream.
    if (!messages.every(isMessage))
      return Response.json(
        {
          error:
            'Each of "messages" must be an object with a "role" and "parts", a list of objects with a "type" (and a text part\'s "text" a string).',
        },
        { status: 400 },
      );
    const response = chatResponse(chat, messages as UIMessage[], request.signal, locale);
    started = true;
    return response;
  } finally {
    // A turn refused before its stream began ends here; one that began ends with its stream.
    if (!started) await endTurn(chat);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Enough of a UI message for the turn to read: its role, and parts that each say their type; text parts their text. */
function isMessage(value: unknown): boolean {
  if (!isObject(value) || typeof value.role !== 'string' || !Array.isArray(value.parts)) return false;
  // A text part's text is read as a string (the command line, the model's input): nothing else stands in.
  return value.parts.every(
    (part) =>
      isObject(part) && typeof part.type === 'string' && (part.type !== 'text' || typeof part.text === 'string'),
  );
}
