// The worker's OpenAI-compatible endpoint, from its environment. No OPENAI_BASE_URL, no adapter:
// runs that ask for one then fail loudly instead of reaching some default endpoint. Bad values
// stop the worker at startup rather than failing every model call later.
import type { ModelAdapters } from './index.js';
import { createOpenAiAdapter } from './openai.js';

export function openAiAdapterFromEnv(env: Record<string, string | undefined> = process.env): ModelAdapters {
  const baseUrl = env.OPENAI_BASE_URL?.trim();
  if (!baseUrl) return {};
  if (!URL.canParse(baseUrl)) throw new Error(`OPENAI_BASE_URL must be a URL such as http://127.0.0.1:8000/v1, got ${JSON.stringify(baseUrl)}`);
  return {
    openai: createOpenAiAdapter({
      baseUrl,
      // Local servers (vLLM, Ollama, llama.cpp) ignore the key, but the client insists on one.
      apiKey: env.OPENAI_API_KEY?.trim() || 'not-needed',
      model: env.OPENAI_MODEL?.trim() || 'gpt-4o-mini',
      timeoutMs: positiveInteger(env, 'OPENAI_TIMEOUT_MS', 60_000),
      maxTokens: positiveInteger(env, 'OPENAI_MAX_TOKENS', 1_024),
      render: env.OPENAI_RENDER?.trim() === 'document' ? 'document' : 'chat',
    }),
  };
}

function positiveInteger(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}
