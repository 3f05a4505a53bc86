// What a workflow execution was started with, read from the first event of its history. The
// server answers this without a worker (a query would need one to replay the run), and one
// event is all that is fetched, however long the history is.
import type { Client } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow/index.js';

/** The first argument the execution was started with (through the client's data converter), or undefined. */
export async function startInputOf(client: Client, workflowId: string, runId: string): Promise<unknown> {
  const { namespace, loadedDataConverter } = client.options;
  const response = await client.workflowService.getWorkflowExecutionHistory({ namespace, execution: { workflowId, runId }, maximumPageSize: 1 });
  const payloads = response.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  const [first] = await decodeArrayFromPayloads(loadedDataConverter, payloads);
  return first;
}
