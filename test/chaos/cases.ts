// The chaos run's cases: what each run is asked to do, how it is started and followed to its end,
// and the approver who answers the payments runs. Starting, following and approving all retry
// through transient errors, because the server may be the thing being disrupted right now; only
// a run's own terminal failure counts as its end.
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { signDecision } from '../../client/sign.js';
import type { WorldClient } from '../../domains/world/client.js';
import { agentWorkflow } from '../../domains/workflows.js';
import { approveUpdate, stateQuery, type RunResult } from '../../workflows/messages.js';
import { keys as testKeys } from '../support/keys.js';

export interface ChaosCase {
  caseId: string;
  domain: 'incidents' | 'payments';
  handle: WorkflowHandle<typeof agentWorkflow>;
  result?: RunResult;
  /** Set when the run itself ended failed, cancelled, terminated or timed out. */
  error?: string;
}

export const finished = (c: ChaosCase) => c.result !== undefined || c.error !== undefined;

export interface CaseContext {
  client: Client;
  world: WorldClient;
  taskQueue: string;
  /** Makes case ids unique to this chaos run, so a shared world's other records are not counted. */
  stamp: string;
  random: () => number;
  log: (m: string) => void;
  /** Following a run stops when this says so (the run's deadline has passed). */
  givenUp: () => boolean;
}

/** Seeds the world for case i, maybe injects a lost reply, and starts its run. */
export async function startCase(i: number, ctx: CaseContext): Promise<ChaosCase> {
  // Two thirds incidents (restart or revert), one third payments reissues behind an approval.
  const domain = i % 3 === 2 ? 'payments' : 'incidents';
  const caseId = `${domain === 'payments' ? 'PX' : 'INC'}-chaos-${ctx.stamp}-${i}`;
  if (domain === 'payments') {
    await ctx.world.seedPayment({
      transferId: caseId,
      ledgerStatus: 'FAILED',
      replicaStatus: 'FAILED',
      replicaLagMs: 60_000,
      processorAck: 'REJECTED',
      amountMinor: 1_000 + i,
      currency: 'EUR',
      destination: 'DE00CHAOS',
    });
  } else {
    await ctx.world.seedIncident({ caseId, faulty: { service: (['api', 'db', 'cache'] as const)[i % 3] ?? 'api', fault: i % 2 ? 'memory' : 'bad_deploy' } });
  }
  // Some effects lose their reply after committing: those must be reconciled, not resent.
  const op = domain === 'payments' ? 'payments.reissue' : i % 2 ? 'incidents.restart' : 'incidents.revert';
  if (ctx.random() < 0.3) await ctx.world.injectFault({ op, key: caseId, mode: ctx.random() < 0.5 ? 'commit_then_500' : 'commit_then_drop' });
  const workflowId = `${domain}-${caseId}`;
  const latencyMs = 400 + Math.floor(ctx.random() * 800);
  const handle = await retrying(ctx, `start ${workflowId}`, async () => {
    try {
      return await ctx.client.workflow.start(agentWorkflow, {
        taskQueue: ctx.taskQueue,
        workflowId,
        args: [{ run: { domain, caseId, model: { adapter: 'rules', latencyMs } } }],
      });
    } catch (err) {
      // An earlier attempt got through but its reply was lost: the run exists, follow it.
      if (err instanceof WorkflowExecutionAlreadyStartedError) return ctx.client.workflow.getHandle<typeof agentWorkflow>(workflowId);
      throw err;
    }
  });
  const run: ChaosCase = { caseId, domain, handle };
  void follow(run, ctx);
  return run;
}

/** Waits for the run's result (across continue-as-new), riding out a server that is down. */
async function follow(run: ChaosCase, ctx: CaseContext): Promise<void> {
  try {
    run.result = await retrying(ctx, `result of ${run.handle.workflowId}`, async () => {
      try {
        return await run.handle.result();
      } catch (err) {
        if (err instanceof WorkflowFailedError) run.error = err.cause?.message ?? err.message;
        throw err;
      }
    });
  } catch (err) {
    run.error ??= `not followed to its end: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Calls `fn` until it succeeds, a run's own failure is thrown, or the run has been given up on. */
async function retrying<T>(ctx: CaseContext, what: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof WorkflowFailedError || ctx.givenUp()) throw err;
      if (attempt === 1 || attempt % 10 === 0) ctx.log(`${what}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}; retrying`);
      await new Promise((r) => setTimeout(r, Math.min(500 * attempt, 3_000)));
    }
  }
}

/** Plays the payments approver: approves each pending reissue it sees, as the right person. */
export function approveWhenAsked(cases: readonly ChaosCase[]): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const run of cases.filter((c) => c.domain === 'payments' && !finished(c))) {
        try {
          const view = await run.handle.query(stateQuery);
          if (view.awaiting) {
            await run.handle.executeUpdate(approveUpdate, {
              args: [signDecision(testKeys.alice, run.handle.workflowId, view.awaiting, 'approve', 'chaos approver')],
            });
          }
        } catch {
          // The worker or the server may be down right now, or someone approved first: next round.
        }
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
