// What a workflow execution was started with, read from the first event of its history. The
// server answers this without a worker (a query would need one to replay the run), and one
// event is all that is fetched, however long the history is. Public API only: the raw history
// RPC (client.workflowService) and the client's own data converter, applied as the SDK applies
// it (codecs last to first, then the payload converter).
import type { Client } from '@temporalio/client';
import { fromPayloadsAtIndex, type Payload } from '@temporalio/common';

/** The first argument the execution (absent `runId`: the current one) was started with, through the client's data converter, or undefined. */
export async function startInputOf(client: Client, workflowId: string, runId?: string): Promise<unknown> {
  const { namespace, loadedDataConverter } = client.options;
  const execution = { workflowId, ...(runId ? { runId } : {}) };
  const response = await client.workflowService.getWorkflowExecutionHistory({ namespace, execution, maximumPageSize: 1 });
  let payloads = (response.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? []) as Payload[];
  if (payloads.length === 0) return undefined;
  for (const codec of [...loadedDataConverter.payloadCodecs].reverse()) payloads = await codec.decode(payloads);
  return fromPayloadsAtIndex(loadedDataConverter.payloadConverter, 0, payloads);
}
