/**
 * The one place that knows what a question looks like on each protocol revision: the form's
 * downgrade for 2025-06-18 (no `mode`, `enum` + `enumNames`, booleans-only defaults), the
 * `elicitationId` a 2025-11-25 URL request carries, and the `input_required` entry of 2026-07-28.
 */
import { downgrade, type Revision, traitsOf } from '@elicitkit/form';
import {
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type InputRequest,
  inputRequired,
} from '@modelcontextprotocol/server';
import type { Question } from './channel.js';

/** A question in its revision's shape, or why that revision cannot show it. */
export type Shaped<T> = { ok: true; wire: T } | { ok: false; detail: string };

/** A 2025 `elicitation/create`, with the id a URL-mode request is tracked by. */
export type PushRequest =
  | { params: ElicitRequestFormParams; elicitationId?: undefined }
  | { params: ElicitRequestURLParams; elicitationId: string };

/** What a connection on `revision` is sent for `question` when questions are pushed. */
export function pushRequest(question: Question, revision: Revision): Shaped<PushRequest> {
  const { modes } = traitsOf(revision);
  if (question.kind === 'url') {
    if (!modes) return { ok: false, detail: `revision ${revision} has no URL mode.` };
    const elicitationId = crypto.randomUUID();
    return {
      ok: true,
      wire: { params: { mode: 'url', message: question.message, url: question.url, elicitationId }, elicitationId },
    };
  }
  const down = downgrade(question.schema, revision);
  if (!down.ok) {
    return {
      ok: false,
      detail: down.losses
        .filter((l) => l.fatal)
        .map((l) => l.message)
        .join(' '),
    };
  }
  // A revision without modes (2025-06-18) has no `mode` key: a strict client of it refuses unknown keys.
  const params: ElicitRequestFormParams = modes
    ? { mode: 'form', message: question.message, requestedSchema: down.schema }
    : { message: question.message, requestedSchema: down.schema };
  return { ok: true, wire: { params } };
}

/** The `input_required` entry a 2026-07-28 round ends with for `question`. */
export function inputRequest(question: Question): InputRequest {
  return question.kind === 'url'
    ? inputRequired.elicitUrl({ message: question.message, url: question.url })
    : inputRequired.elicit({ mode: 'form', message: question.message, requestedSchema: question.schema });
}
