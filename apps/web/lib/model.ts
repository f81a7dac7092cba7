import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ModelConfig } from './config';

/** The language model the chat uses: the configured OpenAI-compatible endpoint. */
export function languageModel(model: ModelConfig): LanguageModel {
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: model.baseURL,
    ...(model.apiKey ? { apiKey: model.apiKey } : {}),
  });
  return provider.chatModel(model.model);
}
