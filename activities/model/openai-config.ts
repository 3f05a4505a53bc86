// Placeholder until the OpenAI-compatible adapter lands: no endpoint, no adapter.
import type { ModelAdapters } from './index.js';

export function openAiAdapterFromEnv(): ModelAdapters {
  return {};
}
