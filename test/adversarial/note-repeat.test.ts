// A signed note is spent by the execution that takes it (workflows/handlers.ts): its directory read
// runs under an activity id that names it (statement-use.ts noteUseId). A client that sends the
// same note twice to one execution must not make it schedule that activity twice: two activities
// with one id in one execution fail its workflow task, and the run would be wedged. The repeat is
// sent while the first is being taken (its directory read held in the worker), and is answered
// as untrusted text with no read of its own; the first counts, and the run goes on to its end.
import { WorkflowUpdateStage } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { signNote } from '../../client/sign.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { addNoteUpdate } from '../../workflows/messages.js';
import { noteUseId, statementFingerprint } from '../../workflows/statement-use.js';
import { watchRun } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { heldActivity } from '../support/held-activity.js';
import { keys } from '../support/keys.js';
import { waitUntil } from '../support/wait.js';
import { createObedientModel } from './obedient-model.js';

describe('a signed note sent twice to one execution', () => {
  const model = createObedientModel();
  const directory = heldActivity('loadApprovers');
  const h = useAgentHarness({ models: { custom: { obedient: model.adapter } }, wrapActivities: directory.wrap });

  it('counts once: the repeat, sent while the first is taken, is untrusted text with no directory read of its own, and the run is not wedged', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId);
    // The run waits at its first proposal while the notes arrive.
    const release = model.pause(transferId);
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'custom', name: 'obedient' }, budgets: { turns: 16 } });
    await waitUntil(() => model.contextsFor(transferId).length > 0, 'the model to be asked', { everyMs: 20 });
    const note = signNote(keys.alice, handle.workflowId, 'for the record: the customer called, nothing to add');

    const held = directory.hold(handle.workflowId);
    let taken: unknown, repeat: unknown;
    try {
      const first = await handle.startUpdate(addNoteUpdate, { args: [note], waitForStage: WorkflowUpdateStage.ACCEPTED });
      await held.entered; // the first is being taken: its directory read is running, and held
      repeat = await handle.executeUpdate(addNoteUpdate, { args: [note] });
      held.release();
      taken = await first.result();
    } finally {
      held.release();
      release();
    }
    const { view } = await watchRun(handle);

    expect(taken).toEqual({ accepted: true, trusted: true });
    expect(repeat).toEqual({ accepted: true, trusted: false });
    // The repeat was answered first, so it is first in the record; only the first note is alice's word.
    const notes = view.state.transcript.flatMap((t) => (t.kind === 'note' ? [{ by: t.by, trusted: t.trusted }] : []));
    expect(notes).toEqual([
      { by: keys.alice.id, trusted: false },
      { by: keys.alice.id, trusted: true },
    ]);
    const events = (await handle.fetchHistory()).events ?? [];
    const reads = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityId === noteUseId(statementFingerprint(note.signature)));
    expect(reads).toHaveLength(1);
    expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
  });
});
