// Executions someone else left under a case's workflow id. Before an approved effect goes out, the
// run asks the server whether another execution of its id already spent the approval; it reads a
// bounded number of them and refuses (nothing sent) past that bound. Anyone who can start a
// workflow can start one under any id, of any type, on any queue, and end it at once: only the
// engine's own runs can have spent a statement, so only executions of its type are read, and
// junk of another type cannot use up the bound. Judged by the processor's records.
import { describe, expect, it } from 'vitest';
import { seedTransfer } from '../../domains/world/seeds.js';
import { reissuesOf, watchRun } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { waitUntil } from '../support/wait.js';

/** More than the executions the spend check reads (activities/used-statements.ts). */
const JUNK = 51;

describe('junk executions under a case id', () => {
  const h = useAgentHarness();

  it('51 workflows of another type spend nothing: the approved reissue goes out once', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const workflowId = `payments-${transferId}`;
    const junkQueue = uniqueTaskQueue('junk');
    for (let i = 0; i < JUNK; i++) {
      const junk = await h.client.workflow.start('junkWorkflow', { taskQueue: junkQueue, workflowId, args: [] });
      await junk.terminate('junk');
    }
    // Listed, as the spend check will list them: otherwise the test could pass on a slow index.
    await waitUntil(async () => (await h.client.workflow.count(`WorkflowId = "${workflowId}"`)).count >= JUNK, 'the junk executions to be listed');

    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' }, approvalTimeoutMs: 3_600_000 });
    const { result, requests } = await watchRun(handle, keys.alice);
    expect(requests.map((r) => r.tool)).toEqual(['reissue_transfer']);
    expect(result.terminal.class).toBe('resolved');
    expect(await reissuesOf(h.world, transferId)).toHaveLength(1);
  });
});
