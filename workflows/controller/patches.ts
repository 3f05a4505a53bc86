// Where the pure controller asks whether this run takes a newer path. Inside a workflow it is
// Temporal's patched(): a new execution records a marker and takes the new path; a replay of a
// history recorded without the marker takes the old one, so runs in flight keep their decisions.
// Outside a workflow (the controller's unit tests call next() directly) no history constrains
// it: the new path. Ask only where the new path would decide differently, so a run records a
// marker only when it matters.
import { inWorkflowContext, patched } from '@temporalio/workflow';

export function takesNewPath(patchId: string): boolean {
  return inWorkflowContext() ? patched(patchId) : true;
}
