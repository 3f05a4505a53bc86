// The published shape of `agent export <run>`: everything an auditor needs to see what a run
// decided, what it did and on whose authority. Built from the RunState schemas, so a change
// to the state that breaks the export breaks here (and in the export test), not downstream.
import { z } from 'zod';
import { RunState } from '../workflows/controller/state.js';
import type { RunView } from '../workflows/messages.js';

export const RUN_EXPORT_SCHEMA = 'agent-run-export/v1';

const s = RunState.shape;

export const RunExport = z.strictObject({
  schema: z.literal(RUN_EXPORT_SCHEMA),
  exportedAt: z.iso.datetime(),
  /** 2 for runs with the trust boundary: their approvals and denials must carry signed statements. */
  guardVersion: s.guardVersion,
  runId: s.runId,
  domain: s.domain,
  caseId: s.caseId,
  goal: s.goal,
  startedAt: s.startedAt,
  phase: s.phase,
  turn: s.turn,
  /** Absent while the run is still going. */
  terminal: s.terminal,
  budgets: s.budgets,
  used: s.used,
  decisions: s.decisions,
  executions: s.executions,
  evidence: s.evidence,
  /** The effects ledger: every effect the run started, with how its outcome was settled. */
  effects: s.effects,
  /** Each decided request; `signed` holds the approvers' statements (`agent verify` checks them offline). */
  approvals: s.approvals,
  pendingApproval: s.pendingApproval,
  transcript: s.transcript,
  /** How many old records the run's retention dropped from state (they remain in its history). */
  dropped: s.dropped,
});
export type RunExport = z.infer<typeof RunExport>;

export function toRunExport(view: RunView, now = new Date()): RunExport {
  const st = view.state;
  return RunExport.parse({
    schema: RUN_EXPORT_SCHEMA,
    exportedAt: now.toISOString(),
    ...(st.guardVersion !== undefined ? { guardVersion: st.guardVersion } : {}),
    runId: st.runId,
    domain: st.domain,
    caseId: st.caseId,
    goal: st.goal,
    startedAt: st.startedAt,
    phase: st.phase,
    turn: st.turn,
    ...(st.terminal ? { terminal: st.terminal } : {}),
    budgets: st.budgets,
    used: st.used,
    decisions: st.decisions,
    executions: st.executions,
    evidence: st.evidence,
    effects: st.effects,
    approvals: st.approvals,
    ...(st.pendingApproval ? { pendingApproval: st.pendingApproval } : {}),
    transcript: st.transcript,
    dropped: st.dropped,
  });
}
