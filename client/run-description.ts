// A run as the server describes it, asked by its id alone. Every command that must not trust the
// run's own answer asks this first (is it still running, which queue serves it: cancel, assertServed,
// the queue a state query names when nobody polls it), and it needs no worker, so it answers for a
// run whose worker is gone. It reads as a list row does, so a described run and a listed one print alike.
import type { Client } from '@temporalio/client';
import type { AgentWorkflow } from '../workflows/agent.js';
import { translated } from './agent-client-failures.js';
import type { RunDescription } from './agent-client-types.js';
import { buildOf } from './run-build.js';
import { fromSearchAttributes } from './server-facts.js';

/** AgentClient.describe: the server's description of the run's latest execution; RunNotFoundError when it has none. */
export async function describeRun(client: Client, runId: string): Promise<RunDescription> {
  const info = await client.workflow.getHandle<AgentWorkflow>(runId).describe().catch(translated(runId));
  return {
    runId: info.workflowId,
    ...fromSearchAttributes(info.typedSearchAttributes),
    status: info.status.name,
    startTime: info.startTime.toISOString(),
    executionRunId: info.runId,
    taskQueue: info.taskQueue,
    closeTime: info.closeTime?.toISOString() ?? null,
    historyLength: info.historyLength,
    build: buildOf(info),
  };
}
