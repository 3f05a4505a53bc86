// The controller's face: what the rest of the engine (the workflow's interpreter, the activities,
// the client, the examples and the eval) may use of it. Inside workflows/controller/ the files
// import one another; from outside, only this file is imported (test/unit/import-layers.test.ts).
// Read it as the controller's table of contents: the transition and its state, the commands it
// gives and the events it takes, the context a model sees, and the few rules other layers share.

// The transition: an event and the state in, the next state and command out.
export { next, initialState, commandOrHalt, type Step } from './next.js';
export {
  RunState,
  TerminalClass,
  ShownPhase,
  ApprovalRequest,
  shownPhase,
  callsInFlight,
  effectsInDoubt,
  pendingRequest,
  type Phase,
  type PlannedCall,
  type Terminal,
} from './state.js';
export type { BudgetLeft, DecisionReceipt, TranscriptEntry } from './receipts.js';
export { loadState } from './load-state.js';
export type { Command } from './commands.js';
export { type RunEvent } from './events.js';
export { SHAPES, Shape } from '../shape.js';

// What a model sees, and how a proposal is read.
export { estimateTokens, type CompiledContext, type ContextEvidence } from './context.js';
export { compactJson, parseDecision, summarizeDecision } from './decision.js';
export { MAX_PLAN_STEPS } from './plan-schema.js';

// What operators, the client and the record read of a run.
export { headline } from './headline.js';
export { budgetLeft, operatorMsLeft } from './bounds.js';
export { routeView } from './route.js';
export { KEEP } from './bounds.js';

// Rules other layers apply the same way: a signed statement's digest and checks, an effect's key,
// how values compare, how a call is named, a derivation's arithmetic, what a quote must match.
export { approvalDigest } from './approval-request.js';
export { checkAmend, checkDecision, noteEntry } from './trust.js';
export { effectKey, idempotencyKey, keyFor } from './effect-keys.js';
export { kindOrNone, spelled } from './trusted-facts.js';
export { callSignature } from './bounds.js';
export { evaluateDerivation, operandNames } from './derivation.js';
export { numbersWritten } from './derived-args.js';
export { saysAsWritten } from './says-as-written.js';
