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
import { sequenceOf, subjectId } from './subject.js';
import { saysAsWritten } from './says-as-written.js';
import { isTrustedEvidence, personsNotes, spelled, trustedFacts, type TrustedFact } from './trusted-facts.js';

/** A text fact the planner may see: one token, as short as an id or an account number. */
const TOKEN = /^[A-Za-z0-9_.:@/+#=-]{1,64}$/;

/** The trusted facts a planner is shown by value (numbers, and text that is a single token). */
export function plannerFacts(facts: readonly TrustedFact[]): TrustedFact[] {
  return facts.filter((f) => typeof f.value === 'number' || TOKEN.test(f.value));
}

/**
 * The facts the planner may have been shown by value when it wrote the plan being run. A value it
 * wrote may have come from one of them (then it must cite it: cited-sources.ts), never from a fact
 * read after it planned: a name it took from the signed request stays the plan's. Judged on what
 * it could have seen then, not on what vouches now: a fact gone stale while the planner thought,
 * or one this run's own effect carried since, was still before its eyes (so every answered,
 * authoritative read counts here, fresh or not). What it was shown of evidence no longer kept is
 * in the plan itself (`shown`, recorded when the plan was taken: shownValues).
 */
export function shownWhenPlanned(state: Pick<RunState, 'evidence'>, plan: RunningPlan | undefined): { shown: TrustedFact[]; recorded: ReadonlySet<string> } {
  const writtenAt = plan?.writtenAt;
  const shown = plannerFacts(answeredFacts(state)).filter((f) => writtenAt === undefined || sequenceOf(f.evidenceId) <= writtenAt);
  return { shown, recorded: new Set(plan?.shown ?? []) };
}

/**
 * At most this many of the values a plan was written beside are kept with it, a bound on the carried
 * state. A value past it still counts as shown while its read is kept (shownWhenPlanned); once that
 * read is dropped too (a view of more than this many values, then 64 newer reads), it no longer does.
 */
const MAX_RECORDED = 2_000;

/** The values (as spelled) a planner could be shown by value now: kept with the plan it writes, for when their reads are no longer kept. */
export function shownValues(state: Pick<RunState, 'evidence'>): string[] {
  return [...new Set(plannerFacts(answeredFacts(state)).map((f) => spelled(f.value)))].slice(0, MAX_RECORDED);
}

/** Every string or number fact of an answered, authoritative read (fresh or not): what a planner may have been shown. */
function answeredFacts(state: Pick<RunState, 'evidence'>): TrustedFact[] {
  return state.evidence
    .filter((e) => e.status === 'ok' && e.authority === 'authoritative' && e.tool !== EXTRACTED)
    .flatMap((e) =>
      Object.entries(e.facts).flatMap(([key, value]) => (typeof value === 'string' || typeof value === 'number' ? [{ evidenceId: e.id, key, value }] : [])),
    );
}

function shownValue(value: unknown): boolean {
  return value === null || typeof value === 'boolean' || typeof value === 'number' || (typeof value === 'string' && TOKEN.test(value));
}

/**
 * Arguments shown only when every value in them is one the planner is shown anyway: a fact it is
 * shown by value, the case, a person's signed field or words, or a literal of the plan it runs.
 * Anything else a call carried (an extracted value a read was asked about, a withheld name a
 * reference put in a call, an account a person approved once) would reach the planner through that
 * call, and a value it then wrote would pass for its own. An allow-list, so that nothing is shown
 * once the read that said what to withhold is no longer kept.
 */
function shownArgs(args: unknown, allowed: (value: string | number) => boolean): boolean {
  if (Array.isArray(args)) return args.every((a) => shownArgs(a, allowed));
  if (args && typeof args === 'object') return Object.values(args).every((a) => shownArgs(a, allowed));
  if (typeof args === 'string' || typeof args === 'number') return shownValue(args) && allowed(args);
  return args === undefined || shownValue(args);
}

/** The values a call may carry and still be shown to the planner (shownArgs), as spelled, beside a person's words. */
function allowedValues(state: RunState, visible: readonly TrustedFact[]): (value: string | number) => boolean {
  const notes = personsNotes(state);
  const values = new Set<string>([spelled(state.caseId), ...visible.map((f) => spelled(f.value))]);
  for (const n of notes) for (const field of Object.values(n.fields ?? {})) for (const v of [field].flat()) values.add(spelled(v));
  for (const step of state.plan?.steps ?? []) if ('tool' in step) for (const v of literalsOf(step.args)) values.add(spelled(v));
  return (value) => values.has(spelled(value)) || (typeof value === 'string' && notes.some((n) => saysAsWritten(n.text, value)));
}

/** The values a plan's step wrote itself: every leaf outside a reference, a quote or a derivation. */
function literalsOf(args: unknown): (string | number)[] {
  if (typeof args === 'string' || typeof args === 'number') return [args];
  if (Array.isArray(args)) return args.flatMap(literalsOf);
  if (!args || typeof args !== 'object') return [];
  if (['$ref', '$quote', '$derive'].some((k) => Object.hasOwn(args, k))) return [];
  return Object.values(args).flatMap(literalsOf);
}

/** The planner's view of the compiled context: typed facts and codes, never text someone else wrote. */
export function forPlanner(context: CompiledContext, state: RunState, domain: Pick<Domain, 'tools'>, now: number): CompiledContext {
  const vouching = plannerFacts(trustedFacts(state, domain, now));
  const shown = new Set(vouching.map((f) => `${f.evidenceId} ${f.key}`));
  const handles = runHandles(state.evidence);
  // What a call's arguments or subject may hold and still be shown.
  const allowed = allowedValues(state, vouching);
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
      ...(shownArgs(e.args, allowed) && e.tool !== EXTRACTED ? { args: e.args } : {}),
      tool: e.tool,
      source: e.source,
      authority: e.authority,
      status: e.status,
      fresh: e.fresh,
      observedAt: e.observedAt,
      facts,
      ...(withheld.length ? { withheld } : {}),
      ...(e.error ? { error: e.error.class } : {}),
      ...(e.subject && TOKEN.test(e.subject) && (allowed(e.subject) || allowed(subjectId(e.subject))) ? { subject: e.subject } : {}),
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
    // A person's signed words, but not an amendment: its arguments may hold what an extraction put on the card.
    notes: context.notes.filter((n) => n.signed && n.amends === undefined),
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
