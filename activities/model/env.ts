// Every model adapter a worker process offers from its environment: the `openai` adapter
// (OPENAI_*) and the named models of AGENT_MODELS, then whatever the worker script passes in,
// which wins on a clash of names. Read once at startup, so a bad setting stops the worker.
import type { ModelAdapters } from './index.js';
import { openAiAdapterFromEnv } from './openai-config.js';
import { providerAdaptersFromEnv } from './providers.js';

/** The model adapters the environment configures (OPENAI_*, AGENT_MODELS; docs/models.md), with `given` winning on a clash of names. */
export function modelAdaptersFromEnv(env: Record<string, string | undefined> = process.env, given: ModelAdapters = {}): ModelAdapters {
  const openai = openAiAdapterFromEnv(env);
  const named = providerAdaptersFromEnv(env);
  const custom = { ...named.custom, ...given.custom };
  const adapter = given.openai ?? openai.openai;
  return { ...(adapter ? { openai: adapter } : {}), ...(Object.keys(custom).length ? { custom } : {}) };
}
