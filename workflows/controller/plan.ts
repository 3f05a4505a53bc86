// Shape `plan`: the model writes the run's steps from trusted input only, and the engine runs them.
//
// The planner is shown the signed request, the domain's goal and tools, and what the run knows
// as typed facts (planner-view.ts), never a tool's free text; so no text an attacker wrote can add
// a step or change one. It answers with a plan: calls whose arguments are values it wrote or
// references to facts (`{"$ref": "s1.balance"}`), to a typed field a person signed
// (`{"$ref": "request.iban"}`), quotes of a signed note's words (`{"$quote": "GB29..."}`),
// extractions (a model with no tools turns one read's text into one value, `{"$ref": "x1"}`), and
// the claim to finish with. The engine runs the steps in order, and every call meets the same
// gate as any proposal: a value the planner wrote traces to what it was shown (cited-sources.ts,
// `plan`), a quote to the words a person signed (`quote`); an extracted value traces to text
// nobody vouches for, so a person decides on it, shown where it came from, or it is refused.
// When a step fails, is refused or denied, or the plan ends without a finish, the planner is
// asked again and told what became of each step as codes (planOutcomes), never as text.
import type { Domain } from '../contract.js';
import { MAX_PARALLEL_CALLS, type Derive } from './decision.js';
import { isDerive, resolveDerive } from './plan-derive.js';
import type { CallStep, PlanOutcome, PlanReply, PlanStep, RunningPlan } from './plan-schema.js';

import type { RunState } from './state.js';
import { sequenceOf } from './subject.js';
import { unmaskedKey } from './fact-handles.js';
import { EXTRACTED } from './plan-extraction.js';

/** The step name of the plan's finish, once proposed: back in proposing, it was refused or its probe said no. */
export const FINISH_STEP = 'finish';

/** How a plan marks a value it did not write itself: an object of that one key, whose value is a string. */
const marked =
  <K extends string>(key: K) =>
  (v: unknown): v is Record<K, string> =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as Record<string, unknown>)[key] === 'string';
/** `{"$ref": "s1.balance"}`: a fact, an extracted value or a signed field (resolveRef). */
const isRef = marked('$ref');
/** `{"$quote": "..."}`: words of a signed note, as written; the gate finds them there (cited-sources.ts, `quote`). */
const isQuote = marked('$quote');
/** A value the plan did not write itself: a reference or a quote (resolveValue). */
const isMarked = (v: unknown): v is { $ref: string } | { $quote: string } => isRef(v) || isQuote(v);

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A plan's problems, as the planner is told them (they quote only what the planner wrote). */
export function checkPlan(plan: PlanReply, state: RunState, domain: Pick<Domain, 'tools'>): string | undefined {
  if (plan.steps.length === 0 && !plan.finish) return 'a plan has a step or a finish';
  const defined = new Map<string, PlanStep>();
  const known = (id: string) => id === SIGNED || defined.has(id) || state.evidence.some((e) => e.id === id);
  for (const step of plan.steps) {
    if (defined.has(step.id)) return `step ${step.id} is defined twice`;
    if ('extract' in step) {
      const from = defined.get(step.extract.from);
      if (!known(step.extract.from)) return `${step.id} extracts from ${step.extract.from}, which no earlier step or evidence is`;
      if (from && !('tool' in from)) return `${step.id} extracts from another extraction`;
    } else {
      const contract = domain.tools.find((t) => t.name === step.tool);
      if (!contract) return `${step.id} calls ${step.tool}, which is not one of this domain's tools`;
      for (const ref of refsIn(step.args ?? {}))
        if (!known(ref.split('.')[0] ?? '')) return `${step.id} refers to ${ref}, which no earlier step or evidence is`;
    }
    defined.set(step.id, step);
  }
  for (const ref of refsIn(plan.finish?.claim)) if (!known(ref.split('.')[0] ?? '')) return `the finish refers to ${ref}, which no step or evidence is`;
  return undefined;
}

function refsIn(value: unknown): string[] {
  if (isRef(value)) return [value.$ref];
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(refsIn);
  return [];
}

/** What the plan does next: calls to propose, an extraction to ask for, a finish, or the planner to ask again (why, in codes). */
export type PlanNext =
  | {
      calls: { tool: string; args: Record<string, unknown>; sources: Record<string, string | string[]>; derive: Record<string, Derive> }[];
      steps: string[];
    }
  | { finish: { claim: unknown; evidence: string[] } }
  | { extract: string }
  | { replan: PlanOutcome[] };

/**
 * The next thing the plan does, once the steps sent last time are settled (settlePlan). Reads
 * that do not depend on one another go out together; an effect goes alone.
 */
export function planNext(plan: RunningPlan, state: RunState, domain: Pick<Domain, 'tools'>): PlanNext {
  const todo = plan.steps.filter((s) => !Object.hasOwn(plan.done, s.id));
  const [first] = todo;
  if (!first) {
    if (!plan.finish) return { replan: outcomesOf(plan, state) };
    const claim = resolveDeep(plan.finish.claim, plan, state);
    if (!claim.ok) return { replan: [...outcomesOf(plan, state), { step: 'finish', tool: 'finish', outcome: 'unresolved', code: claim.code }] };
    const cited = plan.steps.flatMap((s) => ('tool' in s ? [plan.done[s.id] as string] : []));
    const evidence = cited.length
      ? cited
      : state.evidence
          .filter((e) => e.status === 'ok')
          .map((e) => e.id)
          .slice(-1);
    return { finish: { claim: claim.value, evidence } };
  }
  if ('extract' in first) return { extract: first.id };
  const batch: CallStep[] = [];
  for (const step of todo) {
    if (!('tool' in step) || batch.length >= MAX_PARALLEL_CALLS) break;
    const effect = domain.tools.find((t) => t.name === step.tool)?.kind === 'effect';
    if (batch.length > 0 && (effect || refsIn(step.args ?? {}).some((r) => batch.some((b) => r.split('.')[0] === b.id)))) break;
    batch.push(step);
    if (effect) break;
  }
  const calls: Extract<PlanNext, { calls: unknown }>['calls'] = [];
  for (const step of batch) {
    const args: Record<string, unknown> = {};
    const sources: Record<string, string | string[]> = {};
    const derive: Record<string, Derive> = {};
    for (const [name, value] of Object.entries(step.args ?? {})) {
      if (isDerive(value)) {
        // Computed now, from what the references hold; the gate judges the derivation (plan-derive.ts).
        const contract = domain.tools.find((t) => t.name === step.tool);
        // An operand traces to evidence (derived-args.ts): a signed field is cited whole, not computed with.
        const computed = resolveDerive(value, contract, name, (ref) =>
          ref.startsWith(`${SIGNED}.`) ? { ok: false, code: 'no_such_fact' } : resolveRef(ref, plan, state),
        );
        if (!computed.ok) return { replan: [...outcomesOf(plan, state), { step: step.id, tool: step.tool, outcome: 'unresolved', code: computed.code }] };
        args[name] = computed.value;
        derive[name] = computed.derive;
        continue;
      }
      const items = Array.isArray(value) && value.some(isMarked) ? value : [value];
      const resolved = items.map((item) => resolveValue(item, plan, state));
      const failed = resolved.find((r) => !r.ok);
      if (failed && !failed.ok) return { replan: [...outcomesOf(plan, state), { step: step.id, tool: step.tool, outcome: 'unresolved', code: failed.code }] };
      const ok = resolved as { ok: true; value: unknown; source: string }[];
      args[name] = items === value ? ok.map((r) => r.value) : ok[0]?.value;
      if (ok.some((r) => r.source !== 'plan')) sources[name] = items === value ? ok.map((r) => r.source) : (ok[0]?.source as string);
    }
    calls.push({ tool: step.tool, args, sources, derive });
  }
  return { calls, steps: batch.map((s) => s.id) };
}

type Resolution = { ok: true; value: unknown; source: string } | { ok: false; code: string };

/** One value of a plan as the call carries it, and what it cites: a reference, a quote, or what the planner wrote. */
function resolveValue(value: unknown, plan: RunningPlan, state: RunState): Resolution {
  if (isRef(value)) return resolveRef(value.$ref, plan, state);
  if (isQuote(value)) return { ok: true, value: value.$quote, source: QUOTED };
  return { ok: true, value, source: 'plan' };
}

/**
 * `s1.key`: the fact `key` of the evidence step s1 left; `x1`: the extracted value; `e3.key`: a
 * fact of earlier evidence; `request.field`: a typed field a person signed (signedField).
 */
function resolveRef(ref: string, plan: RunningPlan, state: RunState): Resolution {
  const dot = ref.indexOf('.');
  const head = dot < 0 ? ref : ref.slice(0, dot);
  if (head === SIGNED) return signedField(ref, state);
  const key = dot < 0 ? (head.startsWith('x') ? 'value' : undefined) : ref.slice(dot + 1);
  const evidenceId = head.startsWith('e') ? head : plan.done[head];
  const evidence = evidenceId ? state.evidence.find((e) => e.id === evidenceId) : undefined;
  if (!evidence || evidence.status !== 'ok') return { ok: false, code: 'no_evidence' };
  // The planner names a fact by its masked key (fact-handles.ts).
  const fact = key === undefined ? undefined : unmaskedKey(evidence.facts, key, state.evidence);
  if (fact === undefined) return { ok: false, code: 'no_such_fact' };
  return { ok: true, value: evidence.facts[fact], source: `${evidence.id}.${fact}` };
}

/** The head of a reference to a signed field: `request.iban`, as the gate cites it (cited-sources.ts). */
const SIGNED = 'request';
/** What a call cites for words the plan quoted from a signed note (cited-sources.ts). */
const QUOTED = 'quote';

/**
 * `request.iban`: the field as the newest signed note that states it has it (the request, or a
 * later note that corrects it); `request.email.1`, the second of a list's values (a list named
 * whole is not one value). The call then cites the field, and the gate checks the signature's
 * field holds the value and is of the argument's kind.
 */
function signedField(ref: string, state: RunState): Resolution {
  const [, field, index] = /^request\.([A-Za-z0-9_-]{1,80})(?:\.(\d{1,2}))?$/.exec(ref) ?? [];
  if (field === undefined) return { ok: false, code: 'no_such_field' };
  let held: string | number | (string | number)[] | undefined;
  for (const t of state.transcript) if (t.kind === 'note' && t.trusted && t.fields && Object.hasOwn(t.fields, field)) held = t.fields[field];
  const values = held === undefined ? [] : [held].flat();
  const value = index === undefined ? (values.length === 1 ? values[0] : undefined) : values[Number(index)];
  return value === undefined ? { ok: false, code: 'no_such_field' } : { ok: true, value, source: `${SIGNED}.${field}` };
}

function resolveDeep(value: unknown, plan: RunningPlan, state: RunState): { ok: true; value: unknown } | { ok: false; code: string } {
  if (isMarked(value)) {
    const r = resolveValue(value, plan, state);
    return r.ok ? { ok: true, value: r.value } : r;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      const r = resolveDeep(v, plan, state);
      if (!r.ok) return r;
      out.push(r.value);
    }
    return { ok: true, value: out };
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = resolveDeep(v, plan, state);
      if (!r.ok) return r;
      out[k] = r.value;
    }
    return { ok: true, value: out };
  }
  return { ok: true, value };
}

/** Every step's outcome so far, for the planner: done steps with their evidence, the rest not run. */
export function outcomesOf(plan: RunningPlan, state: RunState): PlanOutcome[] {
  return plan.steps.map((s) => {
    const tool = 'tool' in s ? s.tool : EXTRACTED;
    const evidenceId = plan.done[s.id];
    const evidence = evidenceId ? state.evidence.find((e) => e.id === evidenceId) : undefined;
    if (!evidence) return { step: s.id, tool, outcome: 'not_run' };
    return evidence.status === 'ok'
      ? { step: s.id, tool, outcome: 'ok', evidenceId }
      : { step: s.id, tool, outcome: 'failed', code: evidence.status, evidenceId };
  });
}

/**
 * The steps sent last time, settled on what came of them: each one's evidence (the first of its
 * tool after they were sent), or, where none came, the gate's word (the code of the latest
 * refusal, and for a precondition the reads its contract names). Anything short of an answer for every step ends the plan: `replan` says how.
 */
export function settlePlan(plan: RunningPlan, state: RunState, domain: Pick<Domain, 'tools'>): { plan: RunningPlan } | { replan: PlanOutcome[] } {
  if (!plan.sent) return { plan };
  const done = { ...plan.done };
  const failures: PlanOutcome[] = [];
  const taken = new Set<string>();
  const latest = [...state.transcript].reverse().find((t) => t.kind === 'control');
  const code = latest?.kind === 'control' ? { code: latest.code } : {};
  for (const id of plan.sent.steps) {
    if (id === FINISH_STEP) {
      failures.push({ step: id, tool: FINISH_STEP, outcome: 'refused', ...code });
      continue;
    }
    const step = plan.steps.find((s) => s.id === id);
    if (!step || !('tool' in step)) continue;
    const evidence = state.evidence.find((e) => !taken.has(e.id) && e.tool === step.tool && sequenceOf(e.id) > (plan.sent?.seq ?? 0));
    if (evidence) taken.add(evidence.id);
    if (evidence?.status === 'ok') done[id] = evidence.id;
    else if (evidence) failures.push({ step: id, tool: step.tool, outcome: 'failed', code: evidence.status, evidenceId: evidence.id });
    else failures.push({ step: id, tool: step.tool, outcome: 'refused', ...code, ...needsOf(domain, step.tool, code.code) });
  }
  const settled: RunningPlan = { ...plan, done, sent: undefined };
  return failures.length ? { replan: [...outcomesOf(settled, state).filter((o) => o.outcome === 'ok'), ...failures] } : { plan: settled };
}

/** A step its precondition refused: the reads the contract says the check judges (Precondition.needs), the planner's cue for what to read first. */
function needsOf(domain: Pick<Domain, 'tools'>, tool: string, code: string | undefined): { needs?: string[] } {
  const needs = code === 'precondition_failed' ? domain.tools.find((t) => t.name === tool)?.precondition?.needs : undefined;
  return needs?.length ? { needs: [...needs] } : {};
}
