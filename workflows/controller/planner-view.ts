// What a model is shown in shape `plan`, in one place: the planner sees trusted input only, and an
// extractor sees one read's text and nothing it could act with.
//
// The planner's view holds the signed request and signed notes, the domain's goal and tools, and
// the run's evidence as typed facts: numbers, booleans, and text only as a single token of a fresh
// answer from the system of record (an id, an IBAN, a status; no space, so no sentence). Every
// other fact is withheld by name (the plan may still refer to it, `{"$ref": "e3.key"}`; a key the
// read's output named is shown masked, fact-handles.ts), and so is
// every tool's free text, every error message, every proposal (an extracted value may sit in one)
// and every unsigned note. What the planner was shown is also what its own values may be mistaken
// for: cited-sources.ts holds a value the plan wrote that equals a fact shown here to citing that fact.
import type { Domain } from '../contract.js';
import { toContextEvidence, type CompiledContext, type ContextEvidence } from './compiled-context.js';
import { maskedKeys, runHandles } from './fact-handles.js';
import { EXTRACTED, extractionSource } from './plan-extraction.js';
import type { RunningPlan } from './plan-schema.js';
import type { TranscriptEntry } from './receipts.js';
import type { Evidence, RunState } from './state.js';
import { sequenceOf } from './subject.js';
import { isTrustedEvidence, trustedFacts, type TrustedFact } from './trusted-facts.js';

/** A text fact the planner may see: one token, as short as an id or an account number. */
const TOKEN = /^[A-Za-z0-9_.:@/+#=-]{1,64}$/;

/** The trusted facts a planner is shown by value (numbers, and text that is a single token). */
export function plannerFacts(facts: readonly TrustedFact[]): TrustedFact[] {
  return facts.filter((f) => typeof f.value === 'number' || TOKEN.test(f.value));
}

/**
 * The facts the planner had been shown by value when it wrote the plan being run. A value it
 * wrote may have come from one of them (then it must cite it: cited-sources.ts), never from a fact
 * read after it planned: a name it took from the signed request stays the plan's.
 */
export function shownWhenPlanned(facts: readonly TrustedFact[], plan: RunningPlan | undefined): TrustedFact[] {
  const writtenAt = plan?.writtenAt;
  return plannerFacts(facts).filter((f) => writtenAt === undefined || sequenceOf(f.evidenceId) <= writtenAt);
}

function shownValue(value: unknown): boolean {
  return value === null || typeof value === 'boolean' || typeof value === 'number' || (typeof value === 'string' && TOKEN.test(value));
}

/** Arguments shown only when every value in them is one the planner could be shown. */
function shownArgs(args: unknown): boolean {
  if (Array.isArray(args)) return args.every(shownArgs);
  if (args && typeof args === 'object') return Object.values(args).every(shownArgs);
  return args === undefined || shownValue(args);
}

/** The planner's view of the compiled context: typed facts and codes, never text someone else wrote. */
export function forPlanner(context: CompiledContext, state: RunState, domain: Pick<Domain, 'tools'>, now: number): CompiledContext {
  const shown = new Set(plannerFacts(trustedFacts(state, domain, now)).map((f) => `${f.evidenceId} ${f.key}`));
  const handles = runHandles(state.evidence);
  // Field by field, not from toContextEvidence: a field added there reaches no planner unseen.
  const evidence = state.evidence.map((e): ContextEvidence => {
    const trusted = isTrustedEvidence(e, now);
    const facts: Evidence['facts'] = {};
    const withheld: string[] = [];
    // A key is made from the read's output too (a hotel's name in `hotel.<name>.name`): the planner sees it masked, by the run's handle for the hotel.
    for (const { key, masked } of maskedKeys(e.facts, handles)) {
      const value = e.facts[key] ?? null;
      if (trusted && e.tool !== EXTRACTED && (shown.has(`${e.id} ${key}`) || value === null || typeof value === 'boolean')) facts[masked] = value;
      else withheld.push(masked);
    }
    return {
      id: e.id,
      callId: e.callId,
      ...(shownArgs(e.args) && e.tool !== EXTRACTED ? { args: e.args } : {}),
      tool: e.tool,
      source: e.source,
      authority: e.authority,
      status: e.status,
      fresh: e.fresh,
      observedAt: e.observedAt,
      facts,
      ...(withheld.length ? { withheld } : {}),
      ...(e.error ? { error: e.error.class } : {}),
      ...(e.subject && TOKEN.test(e.subject) ? { subject: e.subject } : {}),
    };
  });
  return {
    ...context,
    evidence,
    // Codes only: a refusal's message may quote an extracted value.
    transcript: context.transcript.flatMap((t): TranscriptEntry[] =>
      t.kind === 'observation' ? [t] : t.kind === 'control' ? [{ ...t, message: t.code }] : [],
    ),
    pinned: [],
    notes: context.notes.filter((n) => n.signed),
    nextStep: undefined,
  };
}

/**
 * The extractor's view: the one read the plan names, with its text, what to take from it, and no
 * tools, no request, no notes and no other evidence. Whatever it answers fills one slot.
 */
export function forExtractor(context: CompiledContext, state: RunState, plan: RunningPlan, stepId: string): CompiledContext {
  const source = extractionSource(plan, state, stepId);
  const step = source?.step.extract;
  return {
    ...context,
    tools: [],
    transcript: [],
    evidence: source?.from ? [toContextEvidence(source.from)] : [],
    pinned: [],
    notes: [],
    nextStep: undefined,
    open: undefined,
    ...(step ? { extract: { step: stepId, from: step.from, want: step.want, ...(step.kind ? { kind: step.kind } : {}), type: step.type ?? 'string' } } : {}),
  };
}
