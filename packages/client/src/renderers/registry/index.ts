import { answerOf, type PendingRegistry, type Settlement } from '../../registry/types.js';
import type { FormAnswer, Prompt, Renderer, RendererModes, UrlAnswer } from '../../types.js';

/**
 * Where questions wait, who may answer them, and how they reach the person.
 *
 * @example
 * createRegistryRenderer({ registry, owner: chat.id, publish: (id, prompt) => writer.write({ type: 'data-elicitation', id, prompt }) });
 */
export interface RegistryRendererOptions {
  registry: PendingRegistry;
  /** Who may answer (the browser chat that started the tool call). */
  owner: string;
  /** Delivers the question to wherever the person is (a data part in a chat stream, a push). */
  publish: (id: string, prompt: Prompt) => Promise<void> | void;
  /**
   * Told how each published question settled (to show its outcome where it was shown). If it
   * fails, the settlement stands: an answer the person was told was taken reaches the server.
   */
  settled?: (id: string, settlement: Settlement) => Promise<void> | void;
  /** What the registry keeps with each question (`OpenOptions.data`); default nothing. */
  data?: (prompt: Prompt) => unknown;
  /** Default both. */
  modes?: RendererModes;
  /** How long each question waits in the registry; default the registry's. */
  timeoutMs?: number;
  /**
   * What `timeoutMs` runs from. `'shown'` (the default): from when the question's turn comes and
   * it is published, its whole time whatever it waited. `'received'`: from when `attach` received
   * it (`prompt.receivedAt`), for a host whose servers time each question from when they asked
   * (opsdesk does): a question that waited behind another gets only the time left of that, so
   * the page never takes an answer ('ok', "answered") after the server gave up on it. One whose
   * time ran out while it waited is published already expired. Needs `timeoutMs`.
   */
  timeoutFrom?: 'shown' | 'received';
  /** The clock `prompt.receivedAt` is read against: attach's `now`. Default `Date.now`. */
  now?: () => number;
  /**
   * Set when the answers that reach the registry are final: the page shows every default
   * pre-filled (as `@elicitkit/react`'s form does) and sends what the person left, or the host
   * applies the defaults itself before `resolve`. Then `attach` does not fill a default into a
   * field the answer leaves out, so a default the person cleared stays cleared. Default false:
   * defaults are applied to what the answer leaves out.
   */
  prefillsDefaults?: boolean;
}

/**
 * For hosts that show the question somewhere else, such as a web page: each prompt becomes a
 * pending registry entry, `publish(id, prompt)` delivers it, and the answer arrives through
 * `registry.resolve(id, owner, answer)` (e.g. from `POST /api/elicitations/{id}`). Expiry, abort
 * (the question is withdrawn) and the person's cancel all answer `cancel`; `settled` hears which.
 * Interactive: an invalid answer is published again with its issues. For URL prompts the page
 * itself opens the link after consent, so there is no opener here.
 *
 * @example
 * const renderer = createRegistryRenderer({ registry, owner: chat.id, publish: (id, prompt) => stream.write({ id, prompt }) });
 * attach(client, { renderer });
 */
export function createRegistryRenderer(options: RegistryRendererOptions): Renderer {
  const { registry, owner, publish } = options;
  if (options.timeoutFrom !== undefined && options.timeoutFrom !== 'shown' && options.timeoutFrom !== 'received')
    throw new TypeError(`timeoutFrom is ${JSON.stringify(options.timeoutFrom)}: 'shown' or 'received'`);
  if (options.timeoutFrom === 'received' && options.timeoutMs === undefined)
    throw new TypeError("timeoutFrom 'received' needs timeoutMs: the time each question has from when it arrived");
  const now = options.now ?? Date.now;

  /** The question's time in the registry: all of `timeoutMs`, or what is left of it since it arrived (at least 1 ms). */
  function timeoutOf(prompt: Prompt): number | undefined {
    const { timeoutMs } = options;
    if (timeoutMs === undefined || options.timeoutFrom !== 'received' || prompt.receivedAt === undefined)
      return timeoutMs;
    const waited = Math.max(0, now() - prompt.receivedAt);
    return Math.max(1, timeoutMs - waited);
  }

  async function ask(prompt: Prompt, signal: AbortSignal) {
    if (signal.aborted) return { action: 'cancel' } as const;
    const timeoutMs = timeoutOf(prompt);
    const id = await registry.open({
      owner,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(options.data ? { data: options.data(prompt) } : {}),
    });
    try {
      await publish(id, prompt);
    } catch (error) {
      await registry.withdraw(id);
      throw error;
    }
    let settlement: Settlement;
    try {
      settlement = await registry.wait(id, signal);
    } catch (error) {
      // A shared store's wait can fail (Redis's, while its subscription is down): the asking side
      // answers cancel, so the question is withdrawn, or the person's answer would be taken ('ok')
      // for a question nobody waits for any more.
      await registry.withdraw(id).catch(() => undefined);
      throw error;
    }
    try {
      await options.settled?.(id, settlement);
    } catch {
      // Showing the outcome failed (the page is gone): the person's answer, taken already, stands.
    }
    return answerOf(settlement);
  }

  return {
    modes: options.modes ?? { form: true, url: true },
    interactive: true,
    prefillsDefaults: options.prefillsDefaults === true,
    async renderForm(prompt, signal): Promise<FormAnswer> {
      const answer = await ask(prompt, signal);
      // A missing content is an empty answer; attach validates it (defaults applied unless prefillsDefaults).
      return answer.action === 'accept' ? { action: 'accept', content: answer.content ?? {} } : answer;
    },
    async renderUrl(prompt, signal): Promise<UrlAnswer> {
      const answer = await ask(prompt, signal);
      return answer.action === 'accept' ? { action: 'accept' } : answer;
    },
  };
}
