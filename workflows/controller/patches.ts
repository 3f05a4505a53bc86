// Where the pure controller asks whether this run takes a newer path. Inside a workflow it is
// Temporal's patched(): a new execution records a marker and takes the new path; a replay of a
// history recorded without the marker takes the old one, so runs in flight keep their decisions.
// Outside a workflow (the controller's unit tests call next() directly) no history constrains
// it: the new path. Ask only where the new path would decide differently, so a run records a
// marker only when it matters.
import { inWorkflowContext, patched } from '@temporalio/workflow';

/**
 * For a domain whose decisions change between versions of your code: true on the new path.
 * Inside a run it is Temporal's `patched(patchId)` (runs recorded before the change keep their
 * old decisions on replay); outside a workflow (unit tests) it is always true.
 */
export function takesNewPath(patchId: string): boolean {
  return inWorkflowContext() ? patched(patchId) : true;
}
