// The engine's workflow-safe entry (`bounded-react-temporal/workflow`): what a domain is made
// of, the agent workflow for your domains, and the messages clients exchange with a run.
// Everything here may be imported by code that runs inside Temporal's workflow sandbox.

/** Defining tools and domains; `z` is the zod the engine's schemas are made with. */
export { z } from 'zod';
export {
  Authority,
  Budgets,
  ContextStrategy,
  caseSubject,
  defineDomain,
  defineTool,
  effectKey,
  type AnyTool,
  type ApprovalRule,
  type DoneEffect,
  type DoneVerdict,
  type Domain,
  type EvidenceVerdict,
  type EvidenceView,
  type NextStepView,
  type SummaryView,
  type FactValue,
  type Facts,
  type Precondition,
  type PreconditionVerdict,
  type ToolContract,
} from './contract.js';

/** The agent workflow: `export const agentWorkflow = agentWorkflowFor([...your domains])`. */
export { AGENT_WORKFLOW_TYPE, agentWorkflowFor, type AgentWorkflow, type AgentWorkflowInput } from './agent.js';
/** For a domain whose decisions change: `takesNewPath('my-change-v1')` is patched() in a run, true in unit tests. */
export { takesNewPath } from './controller/patches.js';
export { pingWorkflow } from './ping.js';

/** What a run is started with, and what it answers. */
export { BudgetOverrides, ModelConfig, RunInput } from './run-input.js';
export {
  addNoteUpdate,
  ApprovalInput,
  approveUpdate,
  CancelInput,
  cancelSignal,
  denyUpdate,
  NoteInput,
  stateQuery,
  type ApprovalAck,
  type RunResult,
  type RunView,
} from './messages.js';
export { RunState, TerminalClass, type Evidence, type EffectEntry, type Terminal } from './controller/state.js';
export type { CompiledContext, ContextEvidence } from './controller/context.js';
export { allSearchAttributeKeys, caseKey, domainKey, phaseKey, stopReasonKey, terminalKey, VisiblePhase } from './search-attributes.js';

/** Signed statements and the approver directory. */
export { Approver, ApproverDirectory } from './trust/directory.js';
export {
  digestOf,
  publicKeyOf,
  SignedDecision,
  SignedNote,
  SignedStart,
  signStatement,
  verifyStatement,
  type DecisionStatement,
  type NoteStatement,
  type StartStatement,
} from './trust/statement.js';
