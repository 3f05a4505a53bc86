// The context compiler: what the model sees each turn. Goal and runtime state always; then the
// transcript under a strategy. `full` re-sends everything (cost grows with the square of the
// run), `window` keeps the last N entries (forgets old findings), `window_pinned` adds the
// latest value of every fact, which does not grow with the number of turns.
import type { ContextStrategy, Domain } from '../contract.js';
import { budgetLeft } from './budget.js';
import { nextStepHint } from './next-step.js';
import type { BudgetLeft, Evidence, RunState, TranscriptEntry } from './state.js';
import type { Shape } from './shape.js';

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
  notes: { by: string; text: string; signed: boolean; fields?: Record<string, string | number | (string | number)[]> }[];
  /** The domain's runbook step for where the run stands (Domain.nextStep): a hint, not a permission. */
  nextStep?: string;
  /** Who decides the run's steps, when its start said (absent: react). */
  shape?: Shape;
  /** Why the model is asked this turn: what the route (or the plan) left open. Absent in react. */
  open?: string[];
  tokenEstimate: number;
}

export function compileContext(state: RunState, domain: Domain, now: number): CompiledContext {
  const transcript = state.context.strategy === 'full' ? state.transcript : state.transcript.slice(-state.context.window);
  const referenced = new Set(transcript.flatMap((t) => (t.kind === 'observation' ? [t.evidenceId] : [])));
  const evidence = state.evidence.filter((e) => state.context.strategy === 'full' || referenced.has(e.id)).map(toContextEvidence);
  const pinned =
    state.context.strategy === 'window_pinned'
      ? Object.entries(state.pinned).map(([key, p]) => ({ ...splitPinnedKey(key), value: p.value, evidenceId: p.evidenceId }))
      : [];
  const nextStep = nextStepHint(state, domain, now);
  const context: CompiledContext = {
    domain: state.domain,
    caseId: state.caseId,
    goal: state.goal,
    strategy: state.context.strategy,
    runtime: { turn: state.turn, left: budgetLeft(state, now), deadlineAt: state.deadlineAt },
    tools: domain.tools.map((t) => ({ name: t.name, kind: t.kind, description: t.description })),
    transcript: transcript.filter((t) => t.kind !== 'note'),
    evidence,
    pinned,
    // A signed note's typed fields are what a call cites as `request.<field>`.
    notes: state.transcript.flatMap((t) =>
      t.kind === 'note' ? [{ by: t.by, text: t.text, signed: t.trusted === true, ...(t.trusted && t.fields ? { fields: t.fields } : {}) }] : [],
    ),
    ...(nextStep ? { nextStep } : {}),
    ...(state.shape ? { shape: state.shape } : {}),
    ...(state.shape && state.shape !== 'react' && state.frontier ? { open: state.frontier } : {}),
    tokenEstimate: 0,
  };
  context.tokenEstimate = estimateTokens(context);
  return context;
}

/** Pinned facts are keyed `<subject> <fact>` (guarded runs) or `<fact>` (runs before subjects). */
function splitPinnedKey(key: string): { key: string; subject?: string } {
  const space = key.indexOf(' ');
  return space < 0 ? { key } : { key: key.slice(space + 1), subject: key.slice(0, space) };
}

function toContextEvidence(e: Evidence): ContextEvidence {
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

/** About four characters a token: close enough to budget with, and the same on replay. */
export function estimateTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}
