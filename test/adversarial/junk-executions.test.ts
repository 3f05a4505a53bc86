// Executions someone else left under a case's workflow id. Before an approved effect goes out, the
// run asks the server whether another execution of its id already spent the approval; it reads a
// bounded number of them and refuses (nothing sent) past that bound. Anyone who can start a
// workflow can start one under any id, of any type, on any queue, and end it at once: only the
// engine's own runs can have spent a statement, so only executions of its type are read, and
// junk of another type cannot use up the bound. Nor can the run's own rollovers: a long run
// continues as new as often as it must, and the executions it continued from are read whatever
// their number, outside the bound. Judged by the processor's records.
import { describe, expect, it } from 'vitest';
import { seedTransfer } from '../../domains/world/seeds.js';
import { signNote } from '../../client/sign.js';
import { addNoteUpdate } from '../../workflows/messages.js';
import { reissuesOf, waitForRequest, watchRun } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { waitUntil } from '../support/wait.js';

/** More than the executions the spend check reads (activities/used-statements.ts). */
const JUNK = 51;
/** Fewer, but with the run's own rollovers more than it reads. */
const SOME_JUNK = 45;
const ROLLOVERS = 6;

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

  it("a run's own rollovers are not counted: 45 junk executions of the engine's type and 6 rollovers, and the approved reissue goes out once", async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const workflowId = `payments-${transferId}`;
    const junkQueue = uniqueTaskQueue('junk');
    // Named like the engine's workflow, on a queue no worker serves: listed by the spend check, and read (they spent nothing).
    for (let i = 0; i < SOME_JUNK; i++) {
      const junk = await h.client.workflow.start('agentWorkflow', { taskQueue: junkQueue, workflowId, args: [] });
      await junk.terminate('junk');
    }
    const executions = async () => (await h.client.workflow.count(`WorkflowId = "${workflowId}" AND WorkflowType = "agentWorkflow"`)).count;
    await waitUntil(async () => (await executions()) >= SOME_JUNK, 'the junk executions to be listed');

    const handle = await startRun(h, {
      domain: 'payments',
      caseId: transferId,
      model: { adapter: 'rules' },
      approvalTimeoutMs: 3_600_000,
      continueAsNewAfterEvents: 100,
    });
    await waitForRequest(handle);
    // A signed note the first execution takes, and so spends: sent again after the rollovers, it
    // must be found spent, so the executions the run continued from are still read, only not counted.
    const note = signNote(keys.alice, workflowId, 'the ledger is the record here');
    await handle.executeUpdate(addNoteUpdate, { args: [note] });
    // Anyone may add a note; each adds to the history, and the run rolls over at its next quiet
    // point past 100 events, its request riding along. Listed before the approval, so the spend
    // check sees at least these: 45 junk and 6 earlier executions of its own, over the bound of 50.
    for (let notes = 0; (await executions()) < SOME_JUNK + ROLLOVERS + 1; notes++) {
      if (notes > 100 * ROLLOVERS) throw new Error(`the run did not roll over ${ROLLOVERS} times on ${notes} notes`);
      await handle.executeUpdate(addNoteUpdate, { args: [{ by: 'someone', text: `note ${notes}` }] });
    }
    expect((await handle.executeUpdate(addNoteUpdate, { args: [note] })).trusted).toBe(false);
    const { result, requests, view } = await watchRun(handle, keys.alice);
    expect(view.state.transcript.some((t) => t.kind === 'control' && t.code === 'note_spent')).toBe(true);
    expect(new Set(requests.map((r) => r.tool))).toEqual(new Set(['reissue_transfer']));
    expect(result.terminal.class).toBe('resolved');
    expect(await reissuesOf(h.world, transferId)).toHaveLength(1);
  });
});
