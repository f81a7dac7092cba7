import type { UIMessage } from 'ai';
import { chatResponse } from '../../../lib/chat';
import { guardedChat } from '../../../lib/guard';
import { readJson } from '../../../lib/http';
import { REFUSED, requestLocale } from '../../../lib/locale';
import { endTurn, takeTurn } from '../../../lib/state';
import { holdsHalf, wholeValue } from '../../../lib/whole-text';
import { TURN_BODY_LIMIT } from '../../../lib/wire';

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
    const body = await readJson(request, TURN_BODY_LIMIT, { locale });
    if (!body.ok) return Response.json({ error: body.error }, { status: body.status });
    // In the page's language: the page sends the body itself, so these show only when something
    // rewrote it (a tab older than the app, an extension, a proxy), and then the person reads them.
    const say = REFUSED[locale];
    const messages = isObject(body.value) ? body.value.messages : undefined;
    if (!Array.isArray(messages)) return Response.json({ error: say.notMessages }, { status: 400 });
    // Read before anything runs: a null message or part was a TypeError's words in the turn's stream.
    if (!messages.every(isMessage)) return Response.json({ error: say.badMessage }, { status: 400 });
    // What the person has just typed is sent as typed or refused, as everywhere a person types.
    const typed = messages.findLast((m) => m.role === 'user') as
      | { parts: { type: string; text?: string }[] }
      | undefined;
    if (typed?.parts.some((p) => p.type === 'text' && holdsHalf(p.text as string)))
      return Response.json({ error: say.halfCharacter }, { status: 400 });
    // The history before it is the page's copy of what was drawn (a page older than this app
    // drew half characters as they came): the model reads them as drawn, U+FFFD.
    const whole = wholeValue(messages).value as UIMessage[];
    const response = chatResponse(chat, whole, request.signal, locale);
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
