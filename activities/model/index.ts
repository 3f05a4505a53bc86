// The model call. Adapters turn a compiled context into a raw reply; the controller parses
// and judges it. A reply is never trusted here: whatever comes back goes to the gate.
import { ApplicationFailure } from '@temporalio/activity';
import { implementations } from '../../domains/implementations.js';
import type { CompiledContext } from '../../workflows/controller/context.js';
import { estimateTokens } from '../../workflows/controller/context.js';
import type { ModelConfig } from '../../workflows/run-input.js';
import { withHeartbeat } from '../heartbeat.js';
import { scriptedReply } from './scripted.js';

export interface ProposeInput {
  domain: string;
  caseId: string;
  model: ModelConfig;
  context: CompiledContext;
  /** Which proposal of the run this is (0-based): the scripted adapter's index. */
  proposalIndex: number;
}

export interface ProposeOutput {
  reply: unknown;
  /** Tokens this call cost (prompt + completion), charged to the run's budget. */
  tokens: number;
}

export interface ModelAdapters {
  /** Present when the worker was configured for an OpenAI-compatible endpoint. */
  openai?: (input: ProposeInput) => Promise<ProposeOutput>;
  /** Any other model, by the name a run's `{ adapter: 'custom', name }` asks for. */
  custom?: Record<string, (input: ProposeInput) => Promise<ProposeOutput>>;
}

export function modelActivities(adapters: ModelAdapters) {
  return {
    async propose(input: ProposeInput): Promise<ProposeOutput> {
      return withHeartbeat(() => proposeWith(adapters, input));
    },
  };
}

async function proposeWith(adapters: ModelAdapters, input: ProposeInput): Promise<ProposeOutput> {
  const model = input.model;
  switch (model.adapter) {
    case 'scripted': {
      await thinkingTime(model.latencyMs);
      const reply = scriptedReply(model.replies, input.proposalIndex);
      return { reply, tokens: input.context.tokenEstimate + estimateTokens(reply ?? null) };
    }
    case 'rules': {
      await thinkingTime(model.latencyMs);
      const policy = implementations[input.domain]?.policy;
      if (!policy) throw ApplicationFailure.nonRetryable(`no rules policy for ${input.domain}`, 'ModelConfigError');
      const reply = policy(input.context);
      return { reply, tokens: input.context.tokenEstimate + estimateTokens(reply) };
    }
    case 'openai': {
      if (!adapters.openai) {
        throw ApplicationFailure.nonRetryable('this worker has no OpenAI-compatible endpoint configured (set OPENAI_BASE_URL)', 'ModelConfigError');
      }
      return adapters.openai(input);
    }
    case 'custom': {
      const adapter = adapters.custom && Object.hasOwn(adapters.custom, model.name) ? adapters.custom[model.name] : undefined;
      if (!adapter) throw ApplicationFailure.nonRetryable(`this worker has no model adapter named ${model.name}`, 'ModelConfigError');
      return adapter(input);
    }
  }
}

/** Simulated latency for the offline adapters: crash tests kill workers in the middle of it. */
async function thinkingTime(ms: number | undefined): Promise<void> {
  if (ms) await new Promise((resolve) => setTimeout(resolve, ms));
}
