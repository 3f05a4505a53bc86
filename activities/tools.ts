// Tool dispatch. The tool is looked up by contract name in a typed registry (never an activity
// name a model supplied), its arguments are checked again at this trust boundary, and every
// failure is classified so the workflow can tell "retry" from "tell the model" from "unknown".
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ToolResult } from '../workflows/controller/events.js';
import type { PlannedCall } from '../workflows/controller/state.js';
import { withHeartbeat } from './heartbeat.js';
import type { AnyImplementation } from './implement.js';
import { shrinkToCap } from './shrink.js';
import { classifyToolError } from './tool-errors.js';

export interface InvokeToolInput {
  domain: string;
  caseId: string;
  call: PlannedCall;
}

export interface ToolDeps {
  implementations: Map<string, AnyImplementation>;
  /** Handed to every tool implementation as `ctx.deps`. */
  deps: unknown;
  blobDir: string;
  /** How long one request to a system of record may take before it counts as a timeout. */
  toolTimeoutMs: number;
}

/** Must match the workflow's retry policy for idempotent calls. */
export const IDEMPOTENT_ATTEMPTS = 3;

export function toolActivities(deps: ToolDeps) {
  return {
    async invokeTool({ domain, caseId, call }: InvokeToolInput): Promise<ToolResult> {
      const impl = deps.implementations.get(domain);
      const contract = impl?.domain.tools.find((t: { name: string }) => t.name === call.tool);
      const run = impl && contract ? (impl.tools as Record<string, ToolFn>)[call.tool] : undefined;
      if (!contract || !run) throw ApplicationFailure.nonRetryable(`no tool ${call.tool} in ${domain}`, 'UnknownTool');
      const args = contract.input.safeParse(call.args);
      if (!args.success) throw ApplicationFailure.nonRetryable(`arguments for ${call.tool} failed validation at dispatch`, 'InvalidArguments');

      const attempt = Context.current().info.attempt;
      const lastAttempt = !call.idempotent || attempt >= IDEMPOTENT_ATTEMPTS;
      const startedAt = Date.now();
      try {
        const raw = await withHeartbeat(() =>
          run(args.data, {
            caseId,
            deps: deps.deps,
            timeoutMs: deps.toolTimeoutMs,
            signal: Context.current().cancellationSignal,
            ...(call.idempotencyKey ? { idempotencyKey: call.idempotencyKey } : {}),
          }),
        );
        const shrunk = shrinkToCap(raw, contract.maxObservationBytes, deps.blobDir);
        return { status: 'ok', callId: call.callId, output: shrunk.output, attempt, startedAt, finishedAt: Date.now(), ...(shrunk.truncated ? { truncated: shrunk.truncated } : {}) };
      } catch (err) {
        const failure = classifyToolError(err, impl?.classify?.bind(impl));
        const finishedAt = Date.now();
        // The system said no: nothing happened, the model hears why.
        if (failure.class === 'semantic') {
          return { status: 'error', callId: call.callId, errorClass: 'semantic', message: failure.message, attempt, startedAt, finishedAt };
        }
        // Transient or timeout: safe to try again only when a repeat does no harm.
        if (!lastAttempt) throw ApplicationFailure.retryable(failure.message, failure.class === 'timeout' ? 'ToolTimeout' : 'ToolTransient');
        if (call.kind === 'effect') {
          // The request may have been applied before the failure: unknown until read back.
          return { status: 'unknown', callId: call.callId, errorClass: 'unknown', message: failure.message, attempt, startedAt, finishedAt };
        }
        if (failure.class === 'timeout') {
          return { status: 'timeout', callId: call.callId, errorClass: 'timeout', message: failure.message, attempt, startedAt, finishedAt };
        }
        return { status: 'error', callId: call.callId, errorClass: 'transient', message: failure.message, attempt, startedAt, finishedAt };
      }
    },
  };
}

type ToolFn = (args: unknown, ctx: Parameters<AnyImplementation['probe']>[1]) => Promise<unknown>;
