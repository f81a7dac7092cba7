import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { Completions } from './completions.js';
import type { IncomingRequest, Responder } from './responder.js';
import { answerUrl } from './url.js';

/**
 * What became of the URL questions a -32042 error carried (`Attachment.urlRequired`): each page
 * consented to (`accept`; `finished` when the server said every one is done in time, so the call
 * may be sent again), or the person's decline or cancel of one, or why they could not be asked
 * (`rejected`: a malformed question, a URL refused).
 */
export type UrlRequiredOutcome =
  | { action: 'accept'; finished: boolean }
  | { action: 'decline' | 'cancel' }
  | { action: 'rejected'; message: string };

/** The most pages one -32042 error may send the person to. */
export const MAX_URLS_REQUIRED = 5;

interface Required {
  url: string;
  message: string;
  elicitationId: string;
}

/**
 * The URL questions a -32042 error (`UrlElicitationRequired`, 2025-11-25) carries, checked field by
 * field; a reason when they are not URL questions this client can put to a person.
 */
function requiredOf(data: unknown): Required[] | string {
  const list =
    typeof data === 'object' && data !== null ? (data as { elicitations?: unknown }).elicitations : undefined;
  if (!Array.isArray(list) || list.length === 0) return 'the -32042 error carries no URL question';
  if (list.length > MAX_URLS_REQUIRED)
    return `the -32042 error sends the person to ${list.length} pages at once; at most ${MAX_URLS_REQUIRED} are asked`;
  const required: Required[] = [];
  for (const item of list) {
    const { mode, url, message, elicitationId } = (typeof item === 'object' && item !== null ? item : {}) as Record<
      string,
      unknown
    >;
    if (mode !== 'url' || typeof url !== 'string' || typeof message !== 'string' || typeof elicitationId !== 'string')
      return 'a question the -32042 error carries is not a URL question (mode "url", url, message, elicitationId)';
    required.push({ url, message, elicitationId });
  }
  return required;
}

/**
 * Puts the URL questions of a -32042 error to the person, one after another, as URL questions the
 * server pushed are put (the full URL, its host and warnings; only an explicit accept opens it),
 * then waits, at most the policy's `timeoutMs`, for the server to say each page is done. Undefined
 * for any other error. Events are told as for a pushed question (`request`, `url-consented`,
 * `answered`, `url-completed`), each with a number of its own.
 */
export async function answerUrlRequired(
  responder: Responder,
  completions: Completions,
  next: () => { id: number; receivedAt: number; server: IncomingRequest['server']; connection: AbortSignal },
  error: unknown,
  signal: AbortSignal | undefined,
): Promise<UrlRequiredOutcome | undefined> {
  if (!(error instanceof ProtocolError) || error.code !== ProtocolErrorCode.UrlElicitationRequired) return undefined;
  const required = requiredOf(error.data);
  if (typeof required === 'string') return { action: 'rejected', message: required };
  const accepted: { elicitationId: string; connection: AbortSignal }[] = [];
  for (const page of required) {
    const { id, receivedAt, server, connection } = next();
    const stopped = signal ? AbortSignal.any([connection, signal]) : connection;
    const request: IncomingRequest = {
      id,
      receivedAt,
      server,
      signal: stopped,
      accepted: (prompt) => completions.accepted(id, prompt, connection),
      cancelled: () => {},
    };
    responder.emit({
      type: 'request',
      id,
      mode: 'url',
      message: page.message,
      server,
      elicitationId: page.elicitationId,
    });
    let action: 'accept' | 'decline' | 'cancel';
    try {
      ({ action } = await answerUrl(responder, request, page));
    } catch (refused) {
      // A URL this client will not show (answerUrl told the `rejected` event already).
      responder.emit({ type: 'answered', id, action: 'decline' });
      return { action: 'rejected', message: refused instanceof Error ? refused.message : String(refused) };
    }
    responder.emit({ type: 'answered', id, action });
    if (action !== 'accept') return { action };
    accepted.push({ elicitationId: page.elicitationId, connection: stopped });
  }
  const waited = AbortSignal.timeout(responder.policy.timeoutMs);
  const all = await Promise.all(
    accepted.map((a) => completions.finished(a.elicitationId, AbortSignal.any([a.connection, waited]))),
  );
  return { action: 'accept', finished: all.every(Boolean) };
}
