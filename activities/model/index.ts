// The model call. Adapters turn a compiled context into a raw reply; the controller parses
// and judges it. A reply is never trusted here: whatever comes back goes to the gate.
import { ErrorTypes } from '../../workflows/policy.js';
import { ApplicationFailure } from '@temporalio/activity';
import type { Domain } from '../../workflows/contract.js';
import type { AnyImplementation } from '../implement.js';
import { type CompiledContext, estimateTokens } from '../../workflows/controller/index.js';
import type { ModelConfig } from '../../workflows/run-input.js';
import { withHeartbeat } from '../heartbeat.js';
import { scriptedReply } from './scripted.js';
import { UsageFloor } from './usage-floor.js';

export interface ProposeInput {
  domain: string;
  caseId: string;
  model: ModelConfig;
  context: CompiledContext;
  /** Which proposal of the run this is (0-based): the scripted adapter's index. */
  proposalIndex: number;
  /** The run's team (RunInput.team): whose daily spend cap the call is charged to (activities/spend). */
  team?: string;
}

export interface ProposeOutput {
  reply: unknown;
  /** Tokens this call cost (prompt + completion), charged to the run's budget. */
  tokens: number;
  /**
   * The split of `tokens`, when the adapter knows it (the AI SDK adapter always says). `estimated`:
   * the provider left some usage out, or reported less than the engine's estimate, and the
   * adapter counted the estimate instead (see `usageFloor`).
   */
  usage?: ModelUsage;
  /**
   * Set when the provider reported less than the engine's own estimate of a side of the call (0,
   * nothing, nonsense): that side was charged the estimate instead (usage-floor.ts), and `tokens`,
   * `usage` and the call's price are the charged numbers.
   */
  usageFloor?: UsageFloor;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  estimated?: boolean;
}

export interface ModelAdapters {
  /** Present when the worker was configured for an OpenAI-compatible endpoint. */
  openai?: ModelAdapter;
  /** Any other model, by the name a run's `{ adapter: 'custom', name }` asks for. */
  custom?: Record<string, ModelAdapter>;
}

/** A model: the compiled context (and the run's domain) in, a raw reply and its token cost out. */
export type ModelAdapter = (input: ProposeInput, domain: Domain) => Promise<ProposeOutput>;

export function modelActivities(adapters: ModelAdapters, implementations: Map<string, AnyImplementation>) {
  return {
    async propose(input: ProposeInput): Promise<ProposeOutput> {
      const impl = implementations.get(input.domain);
      if (!impl) throw ApplicationFailure.nonRetryable(`this worker does not serve domain ${input.domain}`, ErrorTypes.modelConfig);
      const output = await withHeartbeat(() => proposeWith(adapters, impl, input));
      // What comes back from an adapter (ours or a team's) is checked where it enters.
      if (typeof output.tokens !== 'number' || !Number.isFinite(output.tokens) || output.tokens < 0) {
        throw ApplicationFailure.nonRetryable(
          `the model adapter reported a token count that is not a number: ${String(output.tokens).slice(0, 40)}`,
          ErrorTypes.modelConfig,
        );
      }
      return { reply: output.reply, tokens: Math.ceil(output.tokens), ...usageOf(output.usage), ...usageFloorOf(output.usageFloor) };
    },
  };
}

/** Usage passes on only when it is well formed: it is informational, the budget charges `tokens`. */
function usageOf(usage: unknown): { usage?: ModelUsage } {
  if (typeof usage !== 'object' || usage === null) return {};
  const { inputTokens, outputTokens, estimated } = usage as Record<string, unknown>;
  const count = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  if (!count(inputTokens) || !count(outputTokens)) return {};
  return { usage: { inputTokens: Math.ceil(inputTokens), outputTokens: Math.ceil(outputTokens), ...(estimated === true ? { estimated: true } : {}) } };
}

/** The floor's report passes on only when it is well formed: the receipt shows it as the engine's word. */
function usageFloorOf(floor: unknown): { usageFloor?: UsageFloor } {
  if (floor === undefined) return {};
  const parsed = UsageFloor.safeParse(floor);
  return parsed.success && (parsed.data.input || parsed.data.output) ? { usageFloor: parsed.data } : {};
}

async function proposeWith(adapters: ModelAdapters, impl: AnyImplementation, input: ProposeInput): Promise<ProposeOutput> {
  const model = input.model;
  switch (model.adapter) {
    case 'scripted': {
      await thinkingTime(model.latencyMs);
      const reply = scriptedReply(model.replies, input.proposalIndex);
      return { reply, tokens: input.context.tokenEstimate + estimateTokens(reply ?? null) };
    }
    case 'rules': {
      await thinkingTime(model.latencyMs);
      if (!impl.policy) throw ApplicationFailure.nonRetryable(`no rules policy for ${input.domain}`, ErrorTypes.modelConfig);
      const reply = impl.policy(input.context);
      return { reply, tokens: input.context.tokenEstimate + estimateTokens(reply) };
    }
    case 'openai': {
      if (!adapters.openai) {
        throw ApplicationFailure.nonRetryable(
          'this worker has no OpenAI-compatible endpoint configured (set OPENAI_BASE_URL, or give the worker models.openai)',
          ErrorTypes.modelConfig,
        );
      }
      return adapters.openai(input, impl.domain);
    }
    case 'custom': {
      const adapter = adapters.custom && Object.hasOwn(adapters.custom, model.name) ? adapters.custom[model.name] : undefined;
      if (!adapter) throw ApplicationFailure.nonRetryable(`this worker has no model adapter named ${model.name}`, ErrorTypes.modelConfig);
      return adapter(input, impl.domain);
    }
  }
}

/** Simulated latency for the offline adapters: crash tests kill workers in the middle of it. */
async function thinkingTime(ms: number | undefined): Promise<void> {
  if (ms) await new Promise((resolve) => setTimeout(resolve, ms));
}
