// What a workflow execution was started with, read from the first event of its history. The
// server answers this without a worker (a query would need one to replay the run), and one
// event is all that is fetched, however long the history is. Public API only: the raw history
// RPC (client.workflowService) and the client's own data converter (client/client-payloads.ts).
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { decodedValue } from './client-payloads.js';

/** The execution's first event (absent `runId`: the current execution's), as the server keeps it. */
export async function startEventOf(client: Client, workflowId: string, runId?: string): Promise<temporal.api.history.v1.IHistoryEvent | undefined> {
  const execution = { workflowId, ...(runId ? { runId } : {}) };
  const response = await client.workflowService.getWorkflowExecutionHistory({ namespace: client.options.namespace, execution, maximumPageSize: 1 });
  return response.history?.events?.[0] ?? undefined;
}

/** The first argument the execution (absent `runId`: the current one) was started with, through the client's data converter, or undefined. */
export async function startInputOf(client: Client, workflowId: string, runId?: string): Promise<unknown> {
  const payloads = ((await startEventOf(client, workflowId, runId))?.workflowExecutionStartedEventAttributes?.input?.payloads ?? []) as Payload[];
  return payloads.length === 0 ? undefined : decodedValue(client, payloads);
}
