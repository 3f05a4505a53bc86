// Tool dispatch. The tool is looked up by contract name in a typed registry (never an activity
// name a model supplied), its arguments are checked again at this trust boundary, and every
// failure is classified so the workflow can tell "retry" from "tell the model" from "unknown".
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { PlannedCall } from '../workflows/controller/index.js';
import type { ToolResult } from '../workflows/protocol.js';
import { ErrorTypes, TOOL_ATTEMPTS } from '../workflows/policy.js';
import { withDeadline } from './deadline.js';
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

export function toolActivities(deps: ToolDeps) {
  return {
    async invokeTool({ domain, caseId, call }: InvokeToolInput): Promise<ToolResult> {
      const impl = deps.implementations.get(domain);
      const contract = impl?.domain.tools.find((t: { name: string }) => t.name === call.tool);
      const run = impl && contract ? (impl.tools as Record<string, ToolFn>)[call.tool] : undefined;
      const attempt = Context.current().info.attempt;
      const startedAt = Date.now();
      // Refused before anything was sent: nothing can have happened, so an effect is `failed`,
      // not in doubt, and there is nothing to read back.
      const notSent = (message: string): ToolResult => ({
        status: 'error',
        callId: call.callId,
        errorClass: 'not_sent',
        message,
        attempt,
        startedAt,
        finishedAt: Date.now(),
      });
      if (!contract || !run) return notSent(`no tool ${call.tool} in ${domain} on this worker`);
      const args = contract.input.safeParse(call.args);
      if (!args.success) return notSent(`arguments for ${call.tool} failed validation at dispatch`);

      const lastAttempt = !call.idempotent || attempt >= TOOL_ATTEMPTS;
      try {
        const raw = await withHeartbeat(() =>
          withDeadline(deps.toolTimeoutMs, Context.current().cancellationSignal, (signal) =>
            run(args.data, {
              caseId,
              deps: deps.deps,
              timeoutMs: deps.toolTimeoutMs,
              signal,
              ...(call.idempotencyKey ? { idempotencyKey: call.idempotencyKey } : {}),
              ...(call.sentAt !== undefined ? { sentAt: call.sentAt } : {}),
              ...(call.approvedWith?.length ? { approvedWith: call.approvedWith } : {}),
            }),
          ),
        );
        const shrunk = shrinkToCap(raw, contract.maxObservationBytes, deps.blobDir);
        return {
          status: 'ok',
          callId: call.callId,
          output: shrunk.output,
          attempt,
          startedAt,
          finishedAt: Date.now(),
          ...(shrunk.truncated ? { truncated: shrunk.truncated } : {}),
        };
      } catch (err) {
        const failure = classifyToolError(err, impl?.classify?.bind(impl));
        const finishedAt = Date.now();
        // The system said no: nothing happened, the model hears why.
        if (failure.class === 'semantic') {
          return { status: 'error', callId: call.callId, errorClass: 'semantic', message: failure.message, attempt, startedAt, finishedAt };
        }
        // Transient or timeout: safe to try again only when a repeat does no harm. The failure says
        // only what kind it was: Temporal stores a failure's message in clear (no payload codec
        // sees it), and the system's words can hold what the team encrypts. The last attempt's
        // result, a payload, carries them.
        if (!lastAttempt) {
          const type = failure.class === 'timeout' ? ErrorTypes.toolTimeout : ErrorTypes.toolTransient;
          throw ApplicationFailure.retryable(`${call.tool} attempt ${attempt}: ${failure.class} (what the system said is in the call's last result)`, type);
        }
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
