import { applyDefaults, type FormContent, type Issue, validate } from '@elicitkit/form';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { checkFormRequest } from '../checks/form.js';
import type { FormAnswer, FormPrompt } from '../types.js';
import { STOPPED } from './deadline.js';
import {
  autoDecline,
  heard,
  type IncomingRequest,
  overRateLimit,
  type Responder,
  underDeadline,
  type WireResult,
} from './responder.js';

export interface FormParams {
  message: string;
  requestedSchema: unknown;
  elicitationId?: string;
}

/**
 * One form-mode request: refuse what is outside the subset, apply the policy, let the renderer
 * ask, then apply defaults (unless the renderer pre-filled them for the person to keep or clear)
 * and validate. Invalid content is never sent as accept: an interactive renderer is asked again
 * with the issues (up to `maxAttempts`), anything else answers `cancel`.
 */
export async function answerForm(
  responder: Responder,
  request: IncomingRequest,
  params: FormParams,
): Promise<WireResult> {
  const checked = checkFormRequest(params);
  if (!checked.ok) {
    responder.emit({ type: 'rejected', id: request.id, message: checked.message });
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, checked.message);
  }
  if (checked.secretFields.length > 0 && responder.policy.secrets === 'decline') {
    const fields = checked.secretFields.map((f) => `"${f}"`).join(', ');
    return autoDecline(responder, request, 'secret-field', `The form asks for a secret in ${fields}; policy declines.`);
  }
  const limited = await overRateLimit(responder, request);
  if (limited) return limited;
  const base: FormPrompt = {
    mode: 'form',
    message: params.message,
    server: request.server,
    receivedAt: request.receivedAt,
    ...(params.elicitationId === undefined ? {} : { elicitationId: params.elicitationId }),
    findings: checked.findings,
    schema: checked.schema,
    fields: checked.fields,
    secretFields: checked.secretFields,
    ...(checked.unanswerable.length > 0 ? { unanswerable: checked.unanswerable } : {}),
    attempt: 1,
  };
  return underDeadline(responder, request, async (signal, shown) => {
    let retry: { issues: Issue[]; previous?: FormContent } | undefined;
    for (let attempt = 1; ; attempt++) {
      const prompt: FormPrompt = { ...base, attempt, ...retry };
      const answer = await responder.serial(signal, () => {
        shown();
        return heard(request, responder.renderer.renderForm(prompt, signal));
      });
      if (answer === STOPPED) return STOPPED;
      const checkedAnswer = checkAnswer(prompt, answer, responder.renderer.prefillsDefaults !== true);
      if (checkedAnswer.ok) return checkedAnswer.result;
      const willRetry = responder.renderer.interactive && attempt < responder.policy.maxAttempts;
      responder.emit({ type: 'invalid-answer', id: request.id, attempt, issues: checkedAnswer.issues, willRetry });
      if (!willRetry) return { action: 'cancel' };
      retry = { issues: checkedAnswer.issues, ...(checkedAnswer.previous ? { previous: checkedAnswer.previous } : {}) };
    }
  });
}

type CheckedAnswer =
  | { ok: true; result: WireResult }
  | { ok: false; issues: Issue[]; previous: FormContent | undefined };

/**
 * `fillDefaults` is false for a renderer that pre-filled every default: what the person cleared and
 * reviewed as "(empty)" must reach the server empty, not with the default put back.
 */
function checkAnswer(prompt: FormPrompt, answer: FormAnswer, fillDefaults: boolean): CheckedAnswer {
  switch (answer.action) {
    case 'decline':
    case 'cancel':
      return { ok: true, result: { action: answer.action } };
    case 'accept': {
      const content = fillDefaults ? applyDefaults(prompt.schema, answer.content) : answer.content;
      const result = validate(prompt.schema, content);
      if (result.ok) return { ok: true, result: { action: 'accept', content: result.value } };
      const previous = typeof content === 'object' && content !== null ? (content as FormContent) : undefined;
      return { ok: false, issues: result.issues, previous };
    }
    default:
      throw new TypeError(
        `The renderer answered with action ${JSON.stringify((answer as { action: unknown }).action)}.`,
      );
  }
}
