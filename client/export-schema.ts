// The published shape of `agent export <run>`: everything an auditor needs to see what a run
// decided, what it did and on whose authority. Built from the RunState schemas, so a change
// to the state that breaks the export breaks here (and in the export test), not downstream.
import { z } from 'zod';
import { ApprovalRequest, pendingRequest, RunState, ShownPhase, shownPhase } from '../workflows/controller/index.js';
import { RULE_SET } from '../workflows/rule-set.js';
import type { RunView } from '../workflows/messages.js';
import { ClosedFacts } from './run-report.js';

export const RUN_EXPORT_SCHEMA = 'agent-run-export/v1';

const s = RunState.shape;

/**
 * What the server knew of the execution when the record was exported: a run terminated (or
 * timed out, or failed) from outside keeps the state it had, `acting` and an effect in flight;
 * this says it closed, and how. Absent in exports made before it existed.
 */
export const ExecutionFacts = z.strictObject({
  /** Temporal's execution status: RUNNING, COMPLETED, TERMINATED, ... */
  status: z.string(),
  taskQueue: z.string(),
  closeTime: z.iso.datetime().nullable(),
  closed: ClosedFacts.optional(),
  /** The server's facts in words, when the run's own state cannot say them. */
  notices: z.array(z.string()),
});
export type ExecutionFacts = z.infer<typeof ExecutionFacts>;

/** The audit record of a run in the published, versioned schema (`agent-run-export/v1`): what AgentClient.export returns and verifyExport checks. */
export const RunExport = z.strictObject({
  schema: z.literal(RUN_EXPORT_SCHEMA),
  exportedAt: z.iso.datetime(),
  /** The rule set the run was served under (workflows/rule-set.ts): its approvals and denials must carry signed statements. */
  ruleSet: z.string().optional(),
  /** 2 in exports made by a release before rule sets (0.2.x) for runs whose decisions had to be signed. */
  guardVersion: z.literal(2).optional(),
  runId: s.runId,
  /** The chain's first execution run id: approval digests cover it (absent in exports of older runs). */
  chain: z.string().optional(),
  /** The tools of the run's domain that need approval: `agent verify` requires an approved, signed record for each of their effects (absent in exports of older runs). */
  approvalTools: z.array(z.string()).optional(),
  domain: s.domain,
  caseId: s.caseId,
  goal: s.goal,
  startedAt: s.startedAt,
  /** Where the run is, as clients show it (a sub-phase as the phase it refines). */
  phase: ShownPhase,
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
  pendingApproval: ApprovalRequest.optional(),
  transcript: s.transcript,
  /** How many old records the run's retention dropped from state (they remain in its history). */
  dropped: s.dropped,
  execution: ExecutionFacts.optional(),
});
export type RunExport = z.infer<typeof RunExport>;

export function toRunExport(view: RunView, now = new Date(), execution?: ExecutionFacts): RunExport {
  const st = view.state;
  const pending = pendingRequest(st);
  return RunExport.parse({
    schema: RUN_EXPORT_SCHEMA,
    exportedAt: now.toISOString(),
    ruleSet: RULE_SET,
    runId: st.runId,
    chain: st.chain,
    ...(view.approvalTools ? { approvalTools: view.approvalTools } : {}),
    domain: st.domain,
    caseId: st.caseId,
    goal: st.goal,
    startedAt: st.startedAt,
    phase: shownPhase(st.phase),
    turn: st.turn,
    ...(st.terminal ? { terminal: st.terminal } : {}),
    budgets: st.budgets,
    used: st.used,
    decisions: st.decisions,
    executions: st.executions,
    evidence: st.evidence,
    effects: st.effects,
    approvals: st.approvals,
    ...(pending ? { pendingApproval: pending } : {}),
    transcript: st.transcript,
    dropped: st.dropped,
    ...(execution ? { execution } : {}),
  });
}
