// Any AI SDK language model as an engine model adapter. The engine keeps what is its own: the
// chat rendering (chat-render.ts, prompt.ts), the functions declared from the zod contracts
// (functions.ts), reading the reply into a decision (reply.ts, text-calls.ts) and what a failure
// means for the run (retry under Temporal, or a rejected proposal). The SDK only carries the
// request over the provider's wire protocol; the version-specific part is ai-sdk-v3.ts.
//
// A worker registers the adapter under a name (`models.custom[name]`, or `models.openai`); a run
// names it (`{ adapter: 'custom', name }`), so workflow code never sees a model object.
import { ErrorTypes } from '../../workflows/policy.js';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Domain } from '../../workflows/contract.js';
import { classifyFailure, generate, isLanguageModel, type GenerateResult, type LanguageModel } from './ai-sdk-v3.js';
import { functionsCache } from './functions.js';
import { modeOf } from './plan-functions.js';
import type { ModelAdapter, ProposeInput, ProposeOutput } from './index.js';
import { renderRun, type Rendering } from './prompt.js';
import { decisionFrom, invalid } from './reply.js';
import { floorUsage, textTokens, wireTokens } from './usage-floor.js';

export type { LanguageModel } from './ai-sdk-v3.js';

export interface AiSdkAdapterOptions {
  /**
   * The model, or how to make one from the model id a run asks for (only the `openai` adapter's
   * run input carries one: `{ adapter: 'openai', model }`; `undefined` means the default).
   */
  model: LanguageModel | ((runModelId: string | undefined) => LanguageModel);
  /** Cap on the reply's tokens (default 1024). */
  maxOutputTokens?: number;
  /** Per call (default 60 s); Temporal retries a call that timed out. */
  timeoutMs?: number;
  /** `chat` (default): chat turns with native tool calls; `document`: the run as one user message. */
  render?: Rendering;
  /**
   * Declare strict schemas (constrained decoding, every optional field nullable). Default: on for
   * OpenAI and OpenAI-compatible models, off otherwise (other providers ignore or refuse it).
   */
  strictTools?: boolean;
}

/** Any AI SDK language model (LanguageModelV3) as a model adapter, e.g. `models: { claude: createAiSdkAdapter({ model: anthropic('claude-sonnet-4-5') }) }`. */
export function createAiSdkAdapter(options: AiSdkAdapterOptions): ModelAdapter {
  const modelFor = typeof options.model === 'function' ? options.model : () => options.model as LanguageModel;
  if (typeof options.model !== 'function' && !isLanguageModel(options.model)) {
    throw new TypeError('createAiSdkAdapter: model must be an AI SDK LanguageModelV3 (specificationVersion "v3") or a function returning one');
  }
  const functionsOf = functionsCache();
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxOutputTokens = options.maxOutputTokens ?? 1_024;

  return async function propose(input: ProposeInput, domain: Domain): Promise<ProposeOutput> {
    const functions = functionsOf(domain, modeOf(input.context));
    const model = modelFor(input.model.adapter === 'openai' ? input.model.model || undefined : undefined);
    const strictTools = options.strictTools ?? model.provider.startsWith('openai');
    const messages = renderRun(domain, input.context, options.render);

    const cancelled = activityCancellationSignal();
    const timeout = AbortSignal.timeout(timeoutMs);
    let result: GenerateResult;
    try {
      result = await generate(model, {
        messages,
        functions,
        strictTools,
        maxOutputTokens,
        abortSignal: cancelled ? AbortSignal.any([cancelled, timeout]) : timeout,
      });
    } catch (err) {
      if (cancelled?.aborted) throw cancelled.reason ?? err; // the activity was cancelled
      if (timeout.aborted) throw transient(`model endpoint unreachable: no reply within ${timeoutMs} ms`);
      const failure = classifyFailure(err);
      if (failure.kind === 'transient') throw transient(failure.message, failure.retryAfterMs);
      if (failure.kind === 'config') throw ApplicationFailure.nonRetryable(failure.message, ErrorTypes.modelConfig);
      if (failure.kind === 'other') throw err;
      // Nothing was generated; the rejected proposal still costs the run a turn.
      return { reply: invalid(failure.message), tokens: 0 };
    }
    const reply = decisionFrom(result.turn, functions);
    return { reply, ...charge(result, input) };
  };
}

/**
 * Tokens to charge: what the provider reported, each side floored at the engine's own estimate
 * (usage-floor.ts). The input estimate is the larger of the compiled context's and the exact
 * request body's; the output estimate is the reply's text and call arguments. `estimated` marks
 * usage the floor lifted, so telemetry never passes the figures off as the provider's.
 */
function charge(result: GenerateResult, input: ProposeInput): Pick<ProposeOutput, 'tokens' | 'usage' | 'usageFloor'> {
  const floored = floorUsage(
    { input: result.usage.inputTokens, output: result.usage.outputTokens },
    { input: Math.max(input.context.tokenEstimate, wireTokens(result.sent)), output: textTokens(result.producedText) },
  );
  const { inputTokens, outputTokens, usageFloor } = floored;
  return {
    tokens: inputTokens + outputTokens,
    usage: { inputTokens, outputTokens, ...(usageFloor ? { estimated: true } : {}) },
    ...(usageFloor ? { usageFloor } : {}),
  };
}

function transient(message: string, nextRetryDelayMs?: number): ApplicationFailure {
  if (nextRetryDelayMs === undefined) return ApplicationFailure.retryable(message, 'ModelTransient');
  return ApplicationFailure.create({ message, type: 'ModelTransient', nonRetryable: false, nextRetryDelay: nextRetryDelayMs });
}

/** Outside an activity (tests, scripts) there is nothing to cancel. */
function activityCancellationSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}
