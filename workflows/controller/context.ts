// The context compiler: what the model sees each turn. Goal and runtime state always; then the
// transcript under a strategy. `full` re-sends everything (cost grows with the square of the
// run), `window` keeps the last N entries (forgets old findings), `window_pinned` adds the
// latest value of every fact, which does not grow with the number of turns.
import type { ContextStrategy, Domain } from '../contract.js';
import { budgetLeft } from './budget.js';
import type { BudgetLeft, Evidence, RunState, TranscriptEntry } from './state.js';

export interface ContextEvidence {
  id: string;
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
}

export interface CompiledContext {
  domain: string;
  caseId: string;
  goal: string;
  strategy: ContextStrategy;
  runtime: { turn: number; left: BudgetLeft; deadlineAt: number };
  tools: { name: string; kind: string; description: string }[];
  transcript: TranscriptEntry[];
  evidence: ContextEvidence[];
  pinned: { key: string; value: unknown; evidenceId: string }[];
  /**
   * Operator notes, always kept. `signed`: a directory key signed it, so it is an operator's
   * word; otherwise it is untrusted text like any tool output (anyone can send a note).
   */
  notes: { by: string; text: string; signed: boolean }[];
  tokenEstimate: number;
}

export function compileContext(state: RunState, domain: Domain, now: number): CompiledContext {
  const transcript =
    state.context.strategy === 'full' ? state.transcript : state.transcript.slice(-state.context.window);
  const referenced = new Set(transcript.flatMap((t) => (t.kind === 'observation' ? [t.evidenceId] : [])));
  const evidence = state.evidence.filter((e) => state.context.strategy === 'full' || referenced.has(e.id)).map(toContextEvidence);
  const pinned =
    state.context.strategy === 'window_pinned'
      ? Object.entries(state.pinned).map(([key, p]) => ({ key, value: p.value, evidenceId: p.evidenceId }))
      : [];
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
    notes: state.transcript.flatMap((t) => (t.kind === 'note' ? [{ by: t.by, text: t.text, signed: t.trusted === true }] : [])),
    tokenEstimate: 0,
  };
  context.tokenEstimate = estimateTokens(context);
  return context;
}

function toContextEvidence(e: Evidence): ContextEvidence {
  return {
    id: e.id,
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
  };
}

/** About four characters a token: close enough to budget with, and the same on replay. */
export function estimateTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}
