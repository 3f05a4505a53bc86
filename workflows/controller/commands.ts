// What the controller asks the workflow to do next. The workflow performs exactly one command
// at a time and answers with an event.
import type { ApprovalRequest, EffectEntry, PlannedCall, Terminal } from './state.js';
import type { CompiledContext } from './context.js';

export type Command =
  | { type: 'propose'; context: CompiledContext; proposalIndex: number }
  | { type: 'invoke'; calls: PlannedCall[] }
  | { type: 'verify'; claim: unknown }
  | { type: 'readback'; effect: EffectEntry; readbackTool: string }
  /** Fetch who may decide the request from the worker's approver directory. */
  | { type: 'loadApprovers'; request: ApprovalRequest }
  | { type: 'awaitApproval'; request: ApprovalRequest }
  | { type: 'stop'; terminal: Terminal };
