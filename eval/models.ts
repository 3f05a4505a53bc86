// Why this exists: both agents must be driven by the very same model functions, so the only
// difference between them is the engine. These are the eval's models as ModelAdapters: the
// domains' `rules` policies, the obedient adversary, a fixed script, and any OpenAI-compatible
// endpoint. The engine's worker registers them as custom adapters; the baseline calls them
// directly.
import type { ModelAdapter, ProposeOutput } from '../activities/model/index.js';
import { createOpenAiAdapter } from '../activities/model/openai.js';
import { scriptedReply } from '../activities/model/scripted.js';
import type { AnyImplementation } from '../activities/implement.js';
import { estimateTokens } from '../workflows/controller/index.js';
import { createObedientModel, type ObedientModel } from './obedient.js';

export type MatrixModel = 'rules' | 'obedient' | 'endpoint';

export interface EndpointOptions {
  baseUrl: string;
  model: string;
  apiKey: string;
  timeoutMs: number;
  maxTokens: number;
  render: 'chat' | 'document';
  /**
   * A slowed model (`--model-delay-s`): every call waits this long before it is sent, as a hosted
   * model under load or a bigger local one answers late, so evidence ages while it "thinks".
   */
  delayMs?: number;
}

export interface EvalModels {
  /** By the name a run asks for (`{ adapter: 'custom', name }`). */
  adapters: Record<MatrixModel, ModelAdapter | undefined>;
  obedient: ObedientModel;
}

/** The same reply as the engine's built-in `rules` adapter, with the same token count. */
export function rulesAdapter(implementations: readonly AnyImplementation[]): ModelAdapter {
  const byName = new Map(implementations.map((i) => [i.domain.name as string, i]));
  return async (input): Promise<ProposeOutput> => {
    const policy = byName.get(input.domain)?.policy;
    if (!policy) throw new Error(`no rules policy for ${input.domain}`);
    const reply = policy(input.context);
    return { reply, tokens: input.context.tokenEstimate + estimateTokens(reply) };
  };
}

/** The built-in scripted adapter's behaviour (reply #proposalIndex, loud when exhausted), for the baseline. */
export function scriptedAdapter(replies: unknown[]): ModelAdapter {
  return async (input): Promise<ProposeOutput> => {
    const reply = scriptedReply(replies, input.proposalIndex);
    return { reply, tokens: input.context.tokenEstimate + estimateTokens(reply ?? null) };
  };
}

function slowed(adapter: ModelAdapter, delayMs: number): ModelAdapter {
  if (delayMs <= 0) return adapter;
  return async (input, domain) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return adapter(input, domain);
  };
}

export function createEvalModels(implementations: readonly AnyImplementation[], endpoint?: EndpointOptions): EvalModels {
  const obedient = createObedientModel(implementations);
  return {
    adapters: {
      rules: rulesAdapter(implementations),
      obedient: obedient.adapter,
      endpoint: endpoint ? slowed(createOpenAiAdapter(endpoint), endpoint.delayMs ?? 0) : undefined,
    },
    obedient,
  };
}
