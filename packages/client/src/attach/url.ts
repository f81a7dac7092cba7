import { lint } from '@elicitkit/form';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { messageProblem } from '../checks/message.js';
import { siteOf } from '../checks/site.js';
import { inspectUrl } from '../checks/url.js';
import { visible } from '../checks/visible.js';
import type { UrlAnswer, UrlPrompt } from '../types.js';
import { STOPPED } from './deadline.js';
import {
  heard,
  type IncomingRequest,
  overRateLimit,
  type Responder,
  underDeadline,
  type WireResult,
} from './responder.js';

export interface UrlParams {
  message: string;
  url: string;
  elicitationId?: string;
}

/**
 * One URL-mode request: the person sees the full URL, its host and every warning, and only an
 * explicit accept opens it. The client never fetches the URL itself.
 */
export async function answerUrl(
  responder: Responder,
  request: IncomingRequest,
  params: UrlParams,
): Promise<WireResult> {
  const tooLong = messageProblem(params.message);
  const seen = tooLong
    ? ({ ok: false, message: `The URL-mode request cannot be shown: ${tooLong.message}. ${tooLong.fix}` } as const)
    : inspectUrl(params.url);
  if (!seen.ok) {
    responder.emit({ type: 'rejected', id: request.id, message: seen.message });
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, seen.message);
  }
  const limited = await overRateLimit(responder, request);
  if (limited) return limited;
  const site = await siteOf(seen.url);
  const prompt: UrlPrompt = {
    mode: 'url',
    message: params.message,
    server: request.server,
    receivedAt: request.receivedAt,
    ...(params.elicitationId === undefined ? {} : { elicitationId: params.elicitationId }),
    // Judged as read, as a form's message is (checks/form.ts).
    findings: lint({ mode: 'url', message: visible(params.message), url: params.url }),
    url: seen.url,
    host: seen.host,
    hostIndex: seen.hostIndex,
    site,
    warnings: seen.warnings,
  };
  return underDeadline(responder, request, async (signal, shown) => {
    const answer = await responder.serial(signal, () => {
      shown();
      return heard(request, responder.renderer.renderUrl(prompt, signal));
    });
    if (answer === STOPPED) return STOPPED;
    return consent(responder, request, prompt, answer);
  });
}

async function consent(
  responder: Responder,
  request: IncomingRequest,
  prompt: UrlPrompt,
  answer: UrlAnswer,
): Promise<WireResult> {
  switch (answer.action) {
    case 'decline':
    case 'cancel':
      return { action: answer.action };
    case 'accept': {
      const event = { type: 'url-consented', id: request.id, url: prompt.url } as const;
      if (!responder.opener) {
        responder.emit({ ...event, opened: 'no-opener' });
      } else {
        try {
          await responder.opener(prompt.url);
          responder.emit({ ...event, opened: 'yes' });
        } catch (error) {
          // The person consented and can still open the URL they were shown; the answer stands.
          responder.emit({ ...event, opened: 'failed', error });
        }
      }
      request.accepted(prompt);
      return { action: 'accept' };
    }
    default:
      throw new TypeError(
        `The renderer answered with action ${JSON.stringify((answer as { action: unknown }).action)}.`,
      );
  }
}
