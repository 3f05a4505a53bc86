// Anyone who can start a workflow can give it our domain's search attribute and a memo no
// operator's client can decode. The SDK's list() decodes every memo, and one that fails ends the
// whole list: the inbox and `agent list` would be taken down by one workflow. Listing reads only
// what a row shows (client/list-rows.ts), so the operator still sees every run, the odd one too.
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { payments } from '../../domains/payments/domain.js';
import { AGENT_WORKFLOW_TYPE } from '../../workflows/agent-workflow-type.js';
import { caseKey, domainKey } from '../../workflows/search-attributes.js';
import { converterFor, newKey, ringEnv } from '../support/codec.js';
import { connectClient, uniqueTaskQueue, useClient } from '../support/temporal.js';
import { waitUntil } from '../support/wait.js';

describe('a workflow with a memo the operator cannot decode', () => {
  const client = useClient();

  it('does not take down list: every run is listed, that one included', async () => {
    const { client: plain, close } = await connectClient();
    // Sealed with a key the operator's client does not hold: its memo is undecodable to it.
    const sealed = new Client({
      connection: plain.connection,
      namespace: plain.options.namespace,
      dataConverter: converterFor(ringEnv('k9', { k9: newKey() })),
    });
    const taskQueue = uniqueTaskQueue('nobody');
    const caseId = `PX-poison-${randomUUID().slice(0, 8)}`;
    const handle = await sealed.workflow.start(AGENT_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `payments-${caseId}`,
      args: [{}],
      memo: { note: 'sealed' },
      typedSearchAttributes: [
        { key: domainKey, value: 'payments' },
        { key: caseKey, value: caseId },
      ],
    });
    try {
      const operator = new AgentClient({ client: client(), taskQueue, domains: [payments] });
      const rows = await waitUntil(
        async () => {
          const listed = await operator.list({ domain: 'payments', limit: 10_000 });
          return listed.some((r) => r.runId === handle.workflowId) ? listed : undefined;
        },
        'the run in the list',
        { everyMs: 200 },
      );
      expect(rows.find((r) => r.runId === handle.workflowId)).toMatchObject({ domain: 'payments', caseId, status: 'RUNNING', taskQueue });
    } finally {
      await handle.terminate('test cleanup');
      await close();
    }
  });
});
