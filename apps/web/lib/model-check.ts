import { generateText } from 'ai';
import type { ModelConfig } from './config';
import type { Locale } from './locale';
import { languageModel } from './model';
import { classifyModelError, explainModelProblem } from './model-errors';
import type { ModelCheck } from './wire';

const CHECK_TIMEOUT_MS = 15_000;

/**
 * One tiny request to the configured endpoint — a one-token completion with the configured
 * model, no retries — classified like a chat turn's errors, so "test connection" and the chat
 * agree on what is wrong.
 *
 * @example
 * const check = await checkModel(config().model, 'en'); // { ok: false, kind: 'unreachable', … }
 */
export async function checkModel(
  model: ModelConfig | undefined,
  locale: Locale,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<ModelCheck> {
  if (!model) return { ok: false, kind: 'not-configured', message: '' };
  const started = performance.now();
  try {
    await generateText({
      model: languageModel(model),
      prompt: 'ping',
      maxOutputTokens: 1,
      maxRetries: 0,
      timeout: timeoutMs,
    });
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (error) {
    const problem = classifyModelError(error);
    return {
      ok: false,
      kind: problem.kind,
      ...(problem.variable ? { variable: problem.variable } : {}),
      message: explainModelProblem(problem, model, locale),
    };
  }
}
