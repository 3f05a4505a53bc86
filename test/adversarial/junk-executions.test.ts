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
import { notesUntil, reissuesOf, rollingPaymentsRun, waitForRequest, watchRun } from '../support/adversarial.js';
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

  /** The executions of `type` under the id that visibility lists, as the spend check lists them. */
  const listed = async (workflowId: string, type: string) => (await h.client.workflow.count(`WorkflowId = "${workflowId}" AND WorkflowType = "${type}"`)).count;

  /** `count` executions of `type` under the id, each ended at once, on a queue no worker serves; listed before it returns. */
  async function plantJunk(workflowId: string, type: string, count: number): Promise<void> {
    const taskQueue = uniqueTaskQueue('junk');
    for (let i = 0; i < count; i++) await (await h.client.workflow.start(type, { taskQueue, workflowId, args: [] })).terminate('junk');
    // Listed, as the spend check will list them: otherwise the test could pass on a slow index.
    await waitUntil(async () => (await listed(workflowId, type)) >= count, 'the junk executions to be listed');
  }

  it('51 workflows of another type spend nothing: the approved reissue goes out once', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const workflowId = `payments-${transferId}`;
    await plantJunk(workflowId, 'junkWorkflow', JUNK);

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
    // Named like the engine's workflow: listed by the spend check, and read (they spent nothing).
    await plantJunk(workflowId, 'agentWorkflow', SOME_JUNK);

    const handle = await startRun(h, rollingPaymentsRun(transferId));
    await waitForRequest(handle);
    // A signed note the first execution takes, and so spends: sent again after the rollovers, it
    // must be found spent, so the executions the run continued from are still read, only not counted.
    const note = signNote(keys.alice, workflowId, 'the ledger is the record here');
    await handle.executeUpdate(addNoteUpdate, { args: [note] });
    // Anyone may add a note (notesUntil), and the run rolls over past 100 events, its request
    // riding along. Listed before the approval, so the spend check sees at least these: 45 junk
    // and 6 earlier executions of its own, over the bound of 50.
    if (!(await notesUntil(handle, async () => (await listed(workflowId, 'agentWorkflow')) >= SOME_JUNK + ROLLOVERS + 1, 100 * ROLLOVERS)))
      throw new Error(`the run did not roll over ${ROLLOVERS} times`);
    expect((await handle.executeUpdate(addNoteUpdate, { args: [note] })).trusted).toBe(false);
    const { result, requests, view } = await watchRun(handle, keys.alice);
    expect(view.state.transcript.some((t) => t.kind === 'control' && t.code === 'note_spent')).toBe(true);
    expect(new Set(requests.map((r) => r.tool))).toEqual(new Set(['reissue_transfer']));
    expect(result.terminal.class).toBe('resolved');
    expect(await reissuesOf(h.world, transferId)).toHaveLength(1);
  });
});
