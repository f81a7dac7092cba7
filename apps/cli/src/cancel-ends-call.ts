import type { FormAnswer, FormPrompt, Prompt, Renderer, UrlAnswer, UrlPrompt } from '@elicitkit/client';

/** A renderer whose person's cancel ends the call, and whether they cancelled. */
export interface CancelEndsCall extends Renderer {
  /** Whether the person cancelled a question of this call. */
  cancelled(): boolean;
}

/**
 * The person's cancel ends the call: the terminal tells them so ("the operation stops here"). On
 * 2025-06-18 and 2025-11-25 each question is a request of its own, so a server that asks again
 * after it — work going on after a cancel, rule EK05 — had its next question drawn as if nothing
 * had happened, and a result it then returned read as done. Every later question is answered
 * `cancel` unseen, `askedAgain` told of each. A cancel because the question was stopped (the
 * server withdrew it, its time ran out) is not the person's.
 *
 * @example
 * const renderer = cancelEndsCall(createTerminalRenderer(), (p) => warn(`asked again: ${p.message}`));
 * if (renderer.cancelled() && !result.isError) warn('the server went on after you cancelled');
 */
export function cancelEndsCall(renderer: Renderer, askedAgain: (prompt: Prompt) => void): CancelEndsCall {
  let cancelled = false;
  async function ask<A extends FormAnswer | UrlAnswer>(
    prompt: Prompt,
    signal: AbortSignal,
    render: () => Promise<A>,
  ): Promise<A> {
    if (cancelled) {
      askedAgain(prompt);
      return { action: 'cancel' } as A;
    }
    const answer = await render();
    if (answer.action === 'cancel' && !signal.aborted) cancelled = true;
    return answer;
  }
  return {
    modes: renderer.modes,
    interactive: renderer.interactive,
    ...(renderer.prefillsDefaults === undefined ? {} : { prefillsDefaults: renderer.prefillsDefaults }),
    ...(renderer.opener === undefined ? {} : { opener: renderer.opener }),
    renderForm: (prompt: FormPrompt, signal: AbortSignal) =>
      ask(prompt, signal, () => renderer.renderForm(prompt, signal)),
    renderUrl: (prompt: UrlPrompt, signal: AbortSignal) =>
      ask(prompt, signal, () => renderer.renderUrl(prompt, signal)),
    ...(renderer.urlCompleted ? { urlCompleted: (prompt: UrlPrompt) => renderer.urlCompleted?.(prompt) } : {}),
    cancelled: () => cancelled,
  };
}
