// Which workflow id a case's run must have. Temporal keeps at most one open execution per
// workflow id, so when the id is derived from the case, "one run per case at a time" is the
// server's own rule. A start under any other id (`incidents-INC-7-b`) would be a second run of
// the same case, free to act on the world beside the first: it is refused before it does anything.
//
// Workflow code: called at the very start of a run, before any command.
import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';

/** The workflow id of a case's run: `<domain>-<caseId>` (what client/start-run.ts starts). */
export function caseRunId(domain: string, caseId: string): string {
  return `${domain}-${caseId}`;
}

/**
 * Refuses, as `InvalidRunInput`, a run whose workflow id is not its case's. No suffix or
 * prefix is tolerated: any variation of the id is a second id, and a second live run.
 * Continue-as-new and reset keep the workflow id, so they pass.
 */
export function refuseForeignRunId(run: { domain: string; caseId: string }): void {
  const expected = caseRunId(run.domain, run.caseId);
  const actual = workflowInfo().workflowId;
  if (actual === expected) return;
  throw ApplicationFailure.nonRetryable(
    `workflow id ${actual} is not the id of ${run.domain} case ${run.caseId}: a case's run must be started as ${expected}, so that two runs can never act on one case at once`,
    'InvalidRunInput',
  );
}
