/**
 * `bounded-react-temporal/workflow`: what a domain is made of, and the agent workflow that runs
 * it. A domain is data the engine enforces: tools with strict input, typed output, read or
 * effect, freshness, the facts the controller may reason about and the free text it must never
 * obey; a claim schema and how a finish is judged. `agentWorkflowFor` turns your domains into
 * the one Temporal workflow your worker bundles.
 *
 * Everything here is workflow-safe: it may be imported by code Temporal bundles into its
 * sandbox (your domain files and your workflows module). The worker side is
 * `bounded-react-temporal/worker`; programs that start and decide runs use
 * `bounded-react-temporal/client`.
 *
 * @example
 * ```ts
 * import { agentWorkflowFor, defineDomain, defineTool, z } from 'bounded-react-temporal/workflow';
 *
 * const byOrder = z.strictObject({ orderId: z.string() });
 * const readOrder = defineTool({ name: 'read_order', description: 'The order as the book has it.', input: byOrder, output: z.object({ status: z.string() }), kind: 'read' });
 * const cancelOrder = defineTool({
 *   name: 'cancel_order', description: 'Cancel an open order.', input: byOrder, output: z.object({ cancellationId: z.string() }),
 *   kind: 'effect', readback: 'cancellation_by_key',
 * });
 * export const orders = defineDomain({
 *   name: 'orders',
 *   goal: (id) => `Cancel order ${id} once, if it is still open.`,
 *   tools: [readOrder, cancelOrder],
 *   claim: z.strictObject({ cancelled: z.literal(true) }),
 *   judgeEvidence: (_claim, cited) => (cited.some((e) => e.fresh) ? { kind: 'supported' } : { kind: 'unsupported', reason: 'cite fresh evidence' }),
 * });
 *
 * // Your workflows module (the worker's workflowsPath):
 * export const agentWorkflow = agentWorkflowFor([orders]);
 * ```
 *
 * @module
 */

// Defining tools and domains.
/** zod, the one the engine's own schemas are made with: build your tools' schemas with it, so engine and domain agree on one zod. */
export { z } from 'zod';
export { caseSubject } from './contract.js';
export { defineTool } from './define-tool.js';
export { effectKey } from './controller/index.js';
export { defineDomain, DomainDefinitionError, validateDomain } from './domain-checks.js';
// The root of every error the engine throws, here and in the worker and client entries.
export { AgentError } from './agent-error.js';
export { routeHint } from './route-hint.js';
export type {
  Budgets,
  ContextStrategy,
  Domain,
  DoneEffect,
  DomainRoute,
  DoneVerdict,
  EvidenceVerdict,
  NextStepView,
  RouteStep,
  RouteView,
  SummaryView,
} from './contract.js';
export type {
  AnyTool,
  ApprovalRule,
  DerivationRule,
  Authority,
  EvidenceView,
  Facts,
  FactValue,
  Precondition,
  PreconditionVerdict,
  ToolContract,
} from './tool-contract.js';

// What a policy (the `rules` model of an implementation) is shown each turn.
export type { CompiledContext, ContextEvidence } from './controller/index.js';

// The agent workflow over your domains, what a run is started with and what it returns.
export { agentWorkflowFor, type AgentWorkflow, type AgentWorkflowInput } from './agent.js';
export { AGENT_WORKFLOW_TYPE } from './agent-workflow-type.js';
export type { BudgetOverrides, ModelConfig, RunInput } from './run-input.js';
export type { Shape } from './controller/index.js';
export type { RunResult } from './messages.js';

// One rule set per release: a history from an older one is refused by name.
export { OlderRuleSetError, RULE_SET } from './rule-set.js';
