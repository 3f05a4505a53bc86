// Shape `plan`'s extraction step: a model with no tools is shown one read's text and answers one
// value (planner-view.ts shows it). Here is where that read is found, and the evidence the answer
// leaves: a value from text nobody vouches for, so it fills only the slot the plan made for it,
// and a call that carries it goes to a person (provenance.ts). The plan's runner is plan.ts.
import type { RunningPlan, PlanStep } from './plan-schema.js';
import type { Evidence, RunState } from './state.js';

/** The evidence an extraction leaves: the value, from text nobody vouches for. */
export const EXTRACTED = 'extract';

/** The evidence an extractor's answer leaves: a value (or none) taken from one read's text, vouched for by nobody. */
export function extractedEvidence(
  state: RunState,
  from: Evidence,
  want: string,
  kind: string | undefined,
  value: string | number | null,
  now: number,
): Evidence {
  const n = state.seq + 1;
  return {
    id: `e${n}`,
    callId: `c${n}`,
    tool: EXTRACTED,
    source: `a model with no tools, reading ${from.tool} (${from.id})`,
    authority: 'untrusted',
    observedAt: now,
    effectiveAt: from.effectiveAt,
    maxAgeMs: from.maxAgeMs,
    fresh: true,
    status: value === null ? 'error' : 'ok',
    facts: value === null ? {} : { value },
    ...(value === null ? { error: { class: 'no_value', message: 'the text holds no such value' } } : {}),
    quoted: [],
    textWithheld: false,
    args: { from: from.id, want, ...(kind ? { kind } : {}) },
  };
}

/** The step an extraction reads from, as evidence: a step of the plan already done, or earlier evidence. */
export function extractionSource(
  plan: RunningPlan,
  state: RunState,
  stepId: string,
): { step: Extract<PlanStep, { extract: unknown }>; from?: Evidence } | undefined {
  const step = plan.steps.find((s) => s.id === stepId);
  if (!step || !('extract' in step)) return undefined;
  const id = step.extract.from.startsWith('e') ? step.extract.from : plan.done[step.extract.from];
  const from = id ? state.evidence.find((e) => e.id === id) : undefined;
  return { step, ...(from ? { from } : {}) };
}
