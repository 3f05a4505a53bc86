// Runs that take notes while a client queries them back to back still replay. The queries make
// Temporal's core hand a seal check's result over a task late, after the notes that came in that
// task (workflows/arrivals.ts says why); the engine refuses a note then (RunBusy), and the sender
// sends it again. Each run's history is replayed from the start on the current code, as a new
// worker would after a restart. With workflows/ as it was before arrivals.ts (git checkout 9eb17ea
// -- workflows/), 17 of 30 such runs did not replay (STRESS_RUNS=30; test/replay/late-seal-check/README.md).
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { sentUntilTaken } from '../../client/bounded-calls.js';
import { seedIncident } from '../../domains/world/seeds.js';
import { addNoteUpdate, stateQuery } from '../../workflows/messages.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';

// metrics; restart (its reply's seal checked); metrics; finish (the probe's verdict checked).
const restartReplies = [
  { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'cache' } }] },
  { type: 'call', calls: [{ tool: 'restart_service', args: { service: 'cache' } }] },
  { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'cache' } }] },
  { type: 'finish', outcome: 'resolved', claim: { remediated: 'cache' }, evidence: ['e6'] },
];
const RUNS = Number(process.env.STRESS_RUNS ?? 9);
const AT_ONCE = 3;

describe('notes and queries while runs check seals', () => {
  const h = useAgentHarness();

  /** One run, queried back to back and sent notes one after another until it ends; what did not replay, if anything. */
  async function hammered(): Promise<{ workflowId: string; notes: number; replay?: string }> {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies: restartReplies } });
    let ended = false;
    const result = handle.result().finally(() => (ended = true));
    let notes = 0;
    const querying = (async () => {
      while (!ended) await handle.query(stateQuery).catch(() => undefined);
    })();
    const noting = (async () => {
      while (!ended) {
        const note = () => handle.executeUpdate(addNoteUpdate, { args: [{ by: 'ops', text: `note ${notes + 1}` }] });
        await sentUntilTaken(note, Date.now() + 60_000).then(
          () => notes++,
          () => undefined, // the run ended under it
        );
      }
    })();
    expect((await result).terminal.class).toBe('resolved');
    await Promise.all([querying, noting]);
    const history = await handle.fetchHistory();
    const replay = await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, handle.workflowId).then(
      () => undefined,
      (err: unknown) => String(err).slice(0, 400),
    );
    return { workflowId: handle.workflowId, notes, ...(replay ? { replay } : {}) };
  }

  it(`every history replays (${RUNS} runs, ${AT_ONCE} at a time)`, async () => {
    const runs: Array<Awaited<ReturnType<typeof hammered>>> = [];
    for (let i = 0; i < RUNS; i += AT_ONCE) runs.push(...(await Promise.all(Array.from({ length: Math.min(AT_ONCE, RUNS - i) }, hammered))));
    expect(runs.filter((r) => r.replay)).toEqual([]);
    // The notes were taken (some after a refusal): the runs were busy with them throughout.
    expect(runs.every((r) => r.notes > 0)).toBe(true);
  });
});
