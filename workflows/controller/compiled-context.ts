// What a model (or a policy) is shown: the compiled context and each piece of evidence in it, as
// types. Their own file because the context compiler (context.ts) makes them and the plan
// shape's views (planner-view.ts) narrow them.
import type { ContextStrategy } from '../contract.js';
import type { Shape } from '../shape.js';
import type { BudgetLeft, TranscriptEntry } from './receipts.js';
import type { Evidence } from './state.js';

/** One observation as the model (or a policy) is shown it: facts, status and freshness, with any free text labelled untrusted. */
export interface ContextEvidence {
  id: string;
  /** The call that produced it, and its arguments (absent for probes and older runs). */
  callId?: string;
  args?: unknown;
  tool: string;
  source: string;
  authority: string;
  status: string;
  fresh: boolean;
  observedAt: number;
  facts: Evidence['facts'];
  error?: string;
  /** Untrusted text from the tool, labelled as data; never an instruction. */
  untrustedText?: string[];
  truncated?: boolean;
  /** What it is about, e.g. `service:db`. */
  subject?: string;
  /** Shape `plan`, the planner's view: facts held back by name (text, or not from the system of record); a plan may still refer to them. */
  withheld?: string[];
}

export function toContextEvidence(e: Evidence): ContextEvidence {
  return {
    id: e.id,
    callId: e.callId,
    ...(e.args !== undefined ? { args: e.args } : {}),
    tool: e.tool,
    source: e.source,
    authority: e.authority,
    status: e.status,
    fresh: e.fresh,
    observedAt: e.observedAt,
    facts: e.facts,
    ...(e.error ? { error: `${e.error.class}: ${e.error.message}` } : {}),
    ...(e.quoted.length ? { untrustedText: e.quoted } : {}),
    ...(e.truncated ? { truncated: true } : {}),
    ...(e.subject ? { subject: e.subject } : {}),
  };
}

/** What the model, or an implementation's `policy`, is shown each turn: the goal, budgets left, the tools, the transcript, evidence and pinned facts. */
export interface CompiledContext {
  domain: string;
  caseId: string;
  goal: string;
  strategy: ContextStrategy;
  runtime: { turn: number; left: BudgetLeft; deadlineAt: number };
  tools: { name: string; kind: string; description: string }[];
  transcript: TranscriptEntry[];
  evidence: ContextEvidence[];
  /** The latest value of each fact, per subject (`subject` absent in runs recorded before subjects). */
  pinned: { key: string; subject?: string; value: unknown; evidenceId: string }[];
  /**
   * Operator notes, always kept. `signed`: a directory key signed it, so it is an operator's
   * word; otherwise it is untrusted text like any tool output (anyone can send a note).
   */
  notes: { by: string; text: string; signed: boolean; fields?: Record<string, string | number | (string | number)[]>; amends?: string }[];
  /** The domain's runbook step for where the run stands (Domain.nextStep): a hint, not a permission. */
  nextStep?: string;
  /** Who decides the run's steps, when its start said (absent: react). */
  shape?: Shape;
  /** Why the model is asked this turn: what the route (or the plan) left open. Absent in react. */
  open?: string[];
  /**
   * Shape `plan`, an extraction: the one value to take from the one read shown (`evidence`). The
   * answer is `{"type": "extracted", "value": ...}` (null when the text holds none); there are no
   * tools, and the value only fills the slot the plan made for it.
   */
  extract?: { step: string; from: string; want: string; kind?: string; type: 'string' | 'number' };
  tokenEstimate: number;
}
