// The `openai` adapter: any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama,
// llama.cpp server, the repo's `npm run model:local`). It used to speak the protocol by hand;
// it is now the AI SDK adapter (ai-sdk.ts) over `@ai-sdk/openai-compatible`, under the same
// name, configuration and run input (`{ adapter: 'openai', model? }`), so existing workers and
// recorded histories (the activity and its input are unchanged) keep working.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createAiSdkAdapter } from './ai-sdk.js';
import type { ModelAdapter } from './index.js';

export { ESCALATE_FUNCTION, FINISH_FUNCTION } from './functions.js';

export interface OpenAiAdapterConfig {
  /** Up to and including the API version, e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1. */
  baseUrl: string;
  apiKey: string;
  /** Used unless the run names its own model. */
  model: string;
  timeoutMs: number;
  maxTokens: number;
  /**
   * `chat` (default): the run as chat turns with native tool calls and tool results.
   * `document`: the whole run as one user message (the earlier rendering; kept for comparison).
   */
  render?: 'chat' | 'document';
}

export function createOpenAiAdapter(config: OpenAiAdapterConfig): ModelAdapter {
  // Named "openai" so the model's provider id is `openai.chat`: strict tools, as before.
  const provider = createOpenAICompatible({ name: 'openai', baseURL: config.baseUrl, apiKey: config.apiKey });
  return createAiSdkAdapter({
    model: (runModelId) => provider.chatModel(runModelId ?? config.model),
    maxOutputTokens: config.maxTokens,
    timeoutMs: config.timeoutMs,
    render: config.render ?? 'chat',
    strictTools: true,
  });
}
