/** Renderers for attach tests: a recorder around any renderer, and a live-person stand-in. */
import type { FormAnswer, FormPrompt, Renderer, UrlAnswer, UrlPrompt } from '../src/types.js';

export interface Recorded {
  renderer: Renderer;
  prompts: (FormPrompt | UrlPrompt)[];
}

/** Wraps a renderer and keeps every prompt it is given. */
export function recording(inner: Renderer): Recorded {
  const prompts: (FormPrompt | UrlPrompt)[] = [];
  const renderer: Renderer = {
    modes: inner.modes,
    interactive: inner.interactive,
    ...(inner.prefillsDefaults === undefined ? {} : { prefillsDefaults: inner.prefillsDefaults }),
    ...(inner.opener ? { opener: inner.opener } : {}),
    renderForm(prompt, signal) {
      prompts.push(prompt);
      return inner.renderForm(prompt, signal);
    },
    renderUrl(prompt, signal) {
      prompts.push(prompt);
      return inner.renderUrl(prompt, signal);
    },
  };
  return { renderer, prompts };
}

/**
 * An interactive renderer whose person answers from a list, one answer per time they are asked;
 * `'hang'` never answers and settles `cancel` only when the signal aborts (as a real UI tears down).
 */
export function person(answers: (FormAnswer | UrlAnswer | 'hang')[]): Renderer {
  const next = (signal: AbortSignal): Promise<FormAnswer> => {
    const answer = answers.shift();
    if (answer === undefined) return Promise.reject(new Error('the person has no more answers'));
    if (answer !== 'hang') return Promise.resolve(answer as FormAnswer);
    return new Promise((resolve) =>
      signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true }),
    );
  };
  return {
    modes: { form: true, url: true },
    interactive: true,
    renderForm: (_prompt, signal) => next(signal),
    renderUrl: async (_prompt, signal) => {
      const answer = await next(signal);
      return answer.action === 'accept' ? { action: 'accept' } : answer;
    },
  };
}
