// The model call. Adapters turn a compiled context into a raw reply; the controller parses
// and judges it. A reply is never trusted here: whatever comes back goes to the gate.
import { ApplicationFailure } from '@temporalio/activity';
import { implementations } from '../../domains/implementations.js';
import type { CompiledContext } from '../../workflows/controller/context.js';
import { estimateTokens } from '../../workflows/controller/context.js';
import type { ModelConfig } from '../../workflows/run-input.js';
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
}

export function modelActivities(adapters: ModelAdapters) {
  return {
    async propose(input: ProposeInput): Promise<ProposeOutput> {
      switch (input.model.adapter) {
        case 'scripted': {
          const reply = scriptedReply(input.model.replies, input.proposalIndex);
          return { reply, tokens: input.context.tokenEstimate + estimateTokens(reply ?? null) };
        }
        case 'rules': {
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
      }
    },
  };
}
