import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import type { ModelConfig } from './config';
import { JsonTextDepth, MAX_JSON_DEPTH } from './depth';
import { wholeText } from './whole-text';

/** The language model the chat uses: the configured OpenAI-compatible endpoint, its text made whole. */
export function languageModel(model: ModelConfig): LanguageModel {
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: model.baseURL,
    ...(model.apiKey ? { apiKey: model.apiKey } : {}),
  });
  return wrapLanguageModel({ model: provider.chatModel(model.model), middleware: wholeCharacters });
}

type Stream = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>['stream'];
type Part = Stream extends ReadableStream<infer P> ? P : never;

/**
 * What a tool call's arguments become when they nest past `MAX_JSON_DEPTH`: not JSON, so the SDK
 * refuses the call as it refuses any arguments it cannot read (and tells the model), and never
 * parses them — past a few thousand levels its parse, and its own JSON.stringify of each step's
 * calls, overflow the stack and end the turn.
 */
export const TOO_DEEP_ARGUMENTS = `(arguments nested deeper than ${MAX_JSON_DEPTH} levels: not read)`;

/** A high surrogate ending a string: the first half of a pair whose second may open the next delta. */
const OPEN_PAIR = /[\uD800-\uDBFF]$/;

/**
 * The model's text and reasoning with every half character (a lone UTF-16 surrogate, which no
 * UTF-8 text can carry) as U+FFFD, where the SDK reads them: so the page draws, saves and sends
 * back in the next turn's history what the model is handed again in the turn's next step — and no
 * `\ud800` goes to an endpoint that may refuse it. A character streamed split across two deltas (a
 * pair's halves in two chunks) is kept whole, sent with the later one; a half still held when its
 * part ends is U+FFFD. Tool calls' arguments are the tools' to refuse (`chat.ts`), but for their
 * depth: past `MAX_JSON_DEPTH` they are not read at all (`TOO_DEEP_ARGUMENTS`).
 */
const wholeCharacters: LanguageModelMiddleware = {
  specificationVersion: 'v3',
  wrapStream: async ({ doStream }) => {
    const { stream, ...rest } = await doStream();
    const held = new Map<string, string>();
    // How deep each tool call's arguments have come so far, as they stream.
    const inputs = new Map<string, JsonTextDepth>();
    const whole = new TransformStream<Part, Part>({
      transform(part, controller) {
        // Arguments nested past what the chat carries: their text stops where it goes past (the
        // page would keep it, and write it into a stack overflow), and the call is refused.
        if (part.type === 'tool-input-delta') {
          let depth = inputs.get(part.id);
          if (!depth) {
            depth = new JsonTextDepth();
            inputs.set(part.id, depth);
          }
          if (depth.read(part.delta)) controller.enqueue(part);
          return;
        }
        if (part.type === 'tool-call') {
          inputs.delete(part.toolCallId);
          controller.enqueue(new JsonTextDepth().read(part.input) ? part : { ...part, input: TOO_DEEP_ARGUMENTS });
          return;
        }
        if (part.type === 'text-delta' || part.type === 'reasoning-delta') {
          const key = `${part.type}:${part.id}`;
          let delta = (held.get(key) ?? '') + part.delta;
          held.delete(key);
          if (OPEN_PAIR.test(delta)) {
            held.set(key, delta.slice(-1));
            delta = delta.slice(0, -1);
          }
          if (delta) controller.enqueue({ ...part, delta: wholeText(delta).text });
          return;
        }
        if (part.type === 'text-end' || part.type === 'reasoning-end') {
          const type = part.type === 'text-end' ? 'text-delta' : 'reasoning-delta';
          const rest = held.get(`${type}:${part.id}`);
          held.delete(`${type}:${part.id}`);
          if (rest) controller.enqueue({ type, id: part.id, delta: wholeText(rest).text });
        }
        controller.enqueue(part);
      },
    });
    return { stream: stream.pipeThrough(whole), ...rest };
  },
};
