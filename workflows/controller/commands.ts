// What the controller asks the workflow to do next. The workflow performs exactly one command
// at a time and answers with an event.
import type { ApprovalRequest, EffectEntry, PlannedCall, Terminal } from './state.js';
import type { CompiledContext } from './context.js';

export type Command =
  | { type: 'propose'; context: CompiledContext; proposalIndex: number }
  | { type: 'invoke'; calls: PlannedCall[] }
  /** `soak`: wait until `until`, then ask the probe whether the condition stayed false over the window. */
  | { type: 'verify'; claim: unknown; soak?: { from: number; until: number } }
  /** `after`: not before this time (a request that may still commit is read back again once it cannot). */
  | { type: 'readback'; effect: EffectEntry; readbackTool: string; after?: number }
  /** Fetch who may decide the request from the worker's approver directory. */
  | { type: 'loadApprovers'; request: ApprovalRequest }
  | { type: 'awaitApproval'; request: ApprovalRequest }
  | { type: 'stop'; terminal: Terminal };
