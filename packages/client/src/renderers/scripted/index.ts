import { applyDefaults, defaultsOf, type FormContent } from '@elicitkit/form';
import { ScriptError } from '../../errors.js';
import type { FormAnswer, Opener, Renderer, UrlAnswer } from '../../types.js';
import type { ScriptedAnswer } from './answers.js';

/**
 * Options of the scripted renderer.
 *
 * @example
 * createScriptedRenderer(answers, { opener: (url) => console.error(`consented: ${url}`) });
 */
export interface ScriptedRendererOptions {
  /** Opens consented URLs. Default none: in CI a consented URL is reported, not opened. */
  opener?: Opener;
}

/**
 * A renderer that answers from a script; `remaining()` tells how many answers are unused.
 *
 * @example
 * if (renderer.remaining() > 0) console.error(`${renderer.remaining()} scripted answers were not needed.`);
 */
export interface ScriptedRenderer extends Renderer {
  remaining(): number;
}

/**
 * Answers elicitations from a script (an answers file: `docs/cli.md`), one entry per elicitation in
 * order, for CI and `doctor`. Form entries: `accept` (its content over the form's defaults, as a
 * person who leaves pre-filled fields alone), `accept-defaults`, `decline`, `cancel`. URL entries:
 * `accept` (or `accept-defaults`) = consent, `decline`, `cancel`. Running out of answers, or an
 * `accept` with content for a URL, throws a `ScriptError`: `attach` answers `cancel` and reports it.
 * Not interactive: an invalid scripted answer is never retried.
 *
 * @example
 * const parsed = parseAnswers(JSON.parse(text));
 * if (parsed.ok) attach(client, { renderer: createScriptedRenderer(parsed.answers) });
 */
export function createScriptedRenderer(
  answers: readonly ScriptedAnswer[],
  options: ScriptedRendererOptions = {},
): ScriptedRenderer {
  const script = answers.map((a) => structuredClone(a));
  let next = 0;
  const take = (): { entry: ScriptedAnswer; index: number } => {
    const index = next++;
    const entry = script[index];
    if (entry === undefined) {
      throw new ScriptError(
        'ANSWERS_EXHAUSTED',
        index,
        `Elicitation ${index + 1} has no scripted answer (the script has ${script.length}).`,
      );
    }
    return { entry, index };
  };

  return {
    modes: { form: true, url: true },
    interactive: false,
    ...(options.opener ? { opener: options.opener } : {}),
    remaining: () => Math.max(0, script.length - next),

    async renderForm(prompt, signal): Promise<FormAnswer> {
      if (signal.aborted) return { action: 'cancel' };
      const { entry } = take();
      switch (entry.action) {
        case 'accept':
          return { action: 'accept', content: applyDefaults(prompt.schema, entry.content ?? {}) as FormContent };
        case 'accept-defaults':
          return { action: 'accept', content: defaultsOf(prompt.schema) };
        case 'decline':
        case 'cancel':
          return { action: entry.action };
        default:
          return unreachable(entry);
      }
    },

    async renderUrl(_prompt, signal): Promise<UrlAnswer> {
      if (signal.aborted) return { action: 'cancel' };
      const { entry, index } = take();
      switch (entry.action) {
        case 'accept':
          if (entry.content !== undefined) {
            throw new ScriptError(
              'ANSWER_MISMATCH',
              index,
              `Elicitation ${index + 1} is a URL consent, but its scripted answer carries form content.`,
            );
          }
          return { action: 'accept' };
        case 'accept-defaults':
          return { action: 'accept' };
        case 'decline':
        case 'cancel':
          return { action: entry.action };
        default:
          return unreachable(entry);
      }
    },
  };
}

function unreachable(entry: never): never {
  throw new TypeError(`Unknown scripted action ${JSON.stringify((entry as { action: unknown }).action)}.`);
}
