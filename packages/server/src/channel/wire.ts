/**
 * The one place that knows what a question looks like on each protocol revision: the form's
 * downgrade for 2025-06-18 (no `mode`, `enum` + `enumNames`, booleans-only defaults), the
 * `elicitationId` a 2025-11-25 URL request carries, and the `input_required` entry of 2026-07-28.
 */
import { downgrade } from '@elicitkit/form';
import {
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type InputRequest,
  inputRequired,
} from '@modelcontextprotocol/server';
import { formRevision, needsDowngrade } from '../peer.js';
import type { Question } from './channel.js';

/** A question in its revision's shape, or why that revision cannot show it. */
export type Shaped<T> = { ok: true; wire: T } | { ok: false; detail: string };

/** A 2025 `elicitation/create`, with the id a URL-mode request is tracked by. */
export type PushRequest =
  | { params: ElicitRequestFormParams; elicitationId?: undefined }
  | { params: ElicitRequestURLParams; elicitationId: string };

/** What a 2025 connection on `revision` is sent for `question`. */
export function pushRequest(question: Question, revision: string): Shaped<PushRequest> {
  const legacy = needsDowngrade(revision);
  if (question.kind === 'url') {
    if (legacy) return { ok: false, detail: `revision ${revision} has no URL mode.` };
    const elicitationId = crypto.randomUUID();
    return {
      ok: true,
      wire: { params: { mode: 'url', message: question.message, url: question.url, elicitationId }, elicitationId },
    };
  }
  const down = downgrade(question.schema, formRevision(revision));
  if (!down.ok) {
    return {
      ok: false,
      detail: down.losses
        .filter((l) => l.fatal)
        .map((l) => l.message)
        .join(' '),
    };
  }
  // 2025-06-18 has no `mode`: a strict client of that revision refuses unknown keys.
  const params: ElicitRequestFormParams = legacy
    ? { message: question.message, requestedSchema: down.schema }
    : { mode: 'form', message: question.message, requestedSchema: down.schema };
  return { ok: true, wire: { params } };
}

/** The `input_required` entry a 2026-07-28 round ends with for `question`. */
export function inputRequest(question: Question): InputRequest {
  return question.kind === 'url'
    ? inputRequired.elicitUrl({ message: question.message, url: question.url })
    : inputRequired.elicit({ mode: 'form', message: question.message, requestedSchema: question.schema });
}
