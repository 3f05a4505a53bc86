// The providers a team would use, by configuration only: a provider name, a model id, and
// optionally a base URL and the name of the environment variable holding the API key. Each
// becomes an AI SDK model wrapped in the engine's adapter (ai-sdk.ts). Bad or missing settings
// stop the worker at startup, never fail every model call later; a key is read from the
// environment variable it names and is never printed.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';
import { createAiSdkAdapter, type LanguageModel } from './ai-sdk.js';
import type { ModelAdapter, ModelAdapters } from './index.js';

export const PROVIDERS = ['openai-compatible', 'openai', 'anthropic', 'google'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Where each provider's key is looked for unless `apiKeyEnv` says otherwise. */
const DEFAULT_KEY_ENV: Record<ProviderName, string | undefined> = {
  'openai-compatible': undefined, // local servers (vLLM, Ollama, llama.cpp) need none
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY',
};

export const ProviderConfig = z.strictObject({
  provider: z.enum(PROVIDERS),
  modelId: z.string().trim().min(1).max(200),
  /** Up to the API version, e.g. http://127.0.0.1:8000/v1. Required for `openai-compatible`. */
  baseUrl: z.url().optional(),
  /** The environment variable holding the key (default per provider, see DEFAULT_KEY_ENV). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().optional(),
  render: z.enum(['chat', 'document']).optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfig>;

/** An AI SDK model for the configured provider; `runModelId` (from the run) overrides the id. */
export function languageModelFor(config: ProviderConfig, env: Record<string, string | undefined> = process.env): (runModelId?: string) => LanguageModel {
  const keyEnv = config.apiKeyEnv ?? DEFAULT_KEY_ENV[config.provider];
  const apiKey = keyEnv ? env[keyEnv]?.trim() || undefined : undefined;
  if (keyEnv && !apiKey && config.provider !== 'openai-compatible') {
    throw new Error(`the ${config.provider} model ${config.modelId} needs an API key in ${keyEnv}`);
  }
  const baseURL = config.baseUrl;
  switch (config.provider) {
    case 'openai-compatible': {
      if (!baseURL) throw new Error(`the openai-compatible model ${config.modelId} needs a base URL`);
      // The name becomes the provider id ("openai-compatible.chat"), which turns strict tools on.
      const provider = createOpenAICompatible({ name: 'openai-compatible', baseURL, ...(apiKey ? { apiKey } : {}) });
      return (id) => provider.chatModel(id ?? config.modelId);
    }
    case 'openai': {
      // The SDK's default for OpenAI is the Responses API (POST /responses).
      const provider = createOpenAI({ apiKey, ...(baseURL ? { baseURL } : {}) });
      return (id) => provider(id ?? config.modelId);
    }
    case 'anthropic': {
      const provider = createAnthropic({ apiKey, ...(baseURL ? { baseURL } : {}) });
      return (id) => provider(id ?? config.modelId);
    }
    case 'google': {
      const provider = createGoogleGenerativeAI({ apiKey, ...(baseURL ? { baseURL } : {}) });
      return (id) => provider(id ?? config.modelId);
    }
  }
}

/** The engine's adapter over a configured provider. */
export function createProviderAdapter(config: ProviderConfig, env: Record<string, string | undefined> = process.env): ModelAdapter {
  const parsed = ProviderConfig.safeParse(config);
  if (!parsed.success) throw new Error(`model provider configuration: ${z.prettifyError(parsed.error)}`);
  const c = parsed.data;
  return createAiSdkAdapter({
    model: languageModelFor(c, env),
    ...(c.maxOutputTokens !== undefined ? { maxOutputTokens: c.maxOutputTokens } : {}),
    ...(c.timeoutMs !== undefined ? { timeoutMs: c.timeoutMs } : {}),
    ...(c.render !== undefined ? { render: c.render } : {}),
  });
}

/**
 * Named models from the environment, registered as custom adapters:
 *
 *   AGENT_MODELS=claude=anthropic:claude-sonnet-4-5,gemini=google:gemini-2.5-flash,local=openai-compatible:qwen2.5
 *   AGENT_MODEL_<NAME>_BASE_URL, AGENT_MODEL_<NAME>_API_KEY_ENV, AGENT_MODEL_<NAME>_MAX_TOKENS,
 *   AGENT_MODEL_<NAME>_TIMEOUT_MS, AGENT_MODEL_<NAME>_RENDER   (<NAME> upper-cased, - as _)
 *
 * A run then asks for one by name: `{ adapter: 'custom', name: 'claude' }`.
 */
export function providerAdaptersFromEnv(env: Record<string, string | undefined> = process.env): ModelAdapters {
  const raw = env.AGENT_MODELS?.trim();
  if (!raw) return {};
  const custom: Record<string, ModelAdapter> = {};
  for (const entry of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^([A-Za-z0-9][A-Za-z0-9_-]{0,79})=([a-z-]+):(.+)$/.exec(entry);
    if (!match) throw new Error(`AGENT_MODELS entries are name=provider:modelId, got ${JSON.stringify(entry)}`);
    const [, name = '', provider = '', modelId = ''] = match;
    if (!(PROVIDERS as readonly string[]).includes(provider))
      throw new Error(`AGENT_MODELS: unknown provider ${JSON.stringify(provider)} for ${name}: one of ${PROVIDERS.join(', ')}`);
    if (Object.hasOwn(custom, name)) throw new Error(`AGENT_MODELS names ${name} twice`);
    const prefix = `AGENT_MODEL_${name.toUpperCase().replace(/-/g, '_')}_`;
    const setting = (key: string) => env[prefix + key]?.trim() || undefined;
    const number = (key: string) => {
      const value = setting(key);
      if (value === undefined) return undefined;
      const n = Number(value);
      if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${prefix}${key} must be a positive integer, got ${JSON.stringify(value)}`);
      return n;
    };
    const config = {
      provider,
      modelId,
      ...(setting('BASE_URL') ? { baseUrl: setting('BASE_URL') } : {}),
      ...(setting('API_KEY_ENV') ? { apiKeyEnv: setting('API_KEY_ENV') } : {}),
      ...(number('MAX_TOKENS') ? { maxOutputTokens: number('MAX_TOKENS') } : {}),
      ...(number('TIMEOUT_MS') ? { timeoutMs: number('TIMEOUT_MS') } : {}),
      ...(setting('RENDER') ? { render: setting('RENDER') } : {}),
    };
    const parsed = ProviderConfig.safeParse(config);
    if (!parsed.success) throw new Error(`AGENT_MODELS ${name}: ${z.prettifyError(parsed.error)}`);
    custom[name] = createProviderAdapter(parsed.data, env);
  }
  return { custom };
}
