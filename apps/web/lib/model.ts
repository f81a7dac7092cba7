import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import type { ModelConfig } from './config';

/** The language model the chat uses, from the configuration. */
export function languageModel(model: ModelConfig): LanguageModel {
  if (model.kind === 'mock') return mockModel();
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: model.baseURL,
    ...(model.apiKey ? { apiKey: model.apiKey } : {}),
  });
  return provider.chatModel(model.model);
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

/**
 * The AI SDK's mock model, scripted for the browser tests: asked to deploy, it calls
 * `deploy_service` for the service it is told about; given the tool's result, it reports it.
 */
function mockModel(): LanguageModel {
  return new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      const last = prompt.at(-1);
      const afterTool = last?.role === 'tool';
      const userText = prompt
        .filter((m) => m.role === 'user')
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .map((c) => ('text' in c ? c.text : ''))
        .join(' ');
      const service = /\b([a-z]+-service)\b/.exec(userText)?.[1] ?? 'order-service';
      const chunks = afterTool
        ? [
            { type: 'stream-start' as const, warnings: [] },
            { type: 'text-start' as const, id: 't1' },
            { type: 'text-delta' as const, id: 't1', delta: `The deploy tool answered: ${toolText(last)}` },
            { type: 'text-end' as const, id: 't1' },
            { type: 'finish' as const, usage, finishReason: { unified: 'stop' as const, raw: 'stop' } },
          ]
        : [
            { type: 'stream-start' as const, warnings: [] },
            {
              type: 'tool-call' as const,
              toolCallId: `call-${Date.now()}`,
              toolName: 'deploy_service',
              input: JSON.stringify({ service }),
            },
            { type: 'finish' as const, usage, finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' } },
          ];
      return { stream: simulateReadableStream({ chunks: chunks as never[], chunkDelayInMs: 5 }) };
    },
  });
}

function toolText(message: unknown): string {
  const content = (message as { content?: { output?: { value?: unknown } }[] }).content ?? [];
  const value = content[0]?.output?.value;
  const text = typeof value === 'string' ? value : (value as { text?: string } | undefined)?.text;
  return text ?? JSON.stringify(value ?? null);
}
