// The model's replies in shape `plan` that are not proposals: a plan (checked, then run by the
// engine step by step) and an extractor's value (kept as evidence nobody vouches for). Both are
// charged like any model reply and receipted; anything else the planner says (a call, a finish,
// an escalation) is judged as a proposal in proposals.ts.
import type { Domain } from '../contract.js';
import { chargeSpend } from './bounds.js';
import { describeIssues } from './decision.js';
import type { RunEvent } from './events.js';
import { checkPlan, safeJson } from './plan.js';
import { extractedEvidence, extractionSource } from './plan-extraction.js';
import { ExtractedReply, PlanReply } from './plan-schema.js';
import { shownValues } from './planner-view.js';
import type { RunState } from './state.js';
import { proposeOrStop, reject, stop, withDecisionReceipt, type Origin } from './transitions.js';

type Proposed = Extract<RunEvent, { type: 'proposed' }>;

/** The reply taken as a plan or an extracted value; undefined when it is neither (a proposal, judged as one). */
export function takePlannerReply(state: RunState, domain: Pick<Domain, 'tools'>, event: Proposed, origin: Origin): RunState | undefined {
  const value = typeof event.reply === 'string' ? (safeJson(event.reply) ?? event.reply) : event.reply;
  const extracting = state.plan?.extracting;
  const saysPlan = value !== null && typeof value === 'object' && (value as { type?: unknown }).type === 'plan';
  if (!extracting && !saysPlan) return undefined;
  const { tokens, contextTokens, now, costMicros } = event;
  const spend = chargeSpend({ ...state, used: { ...state.used, tokens: state.used.tokens + Math.max(0, tokens) } }, costMicros);
  if (spend.overrun) return stop(spend.state, 'budget_exhausted', 'budget:spend', spend.overrun.detail, now);
  const charged = spend.state;
  if (charged.used.tokens > charged.budgets.tokens)
    return stop(charged, 'budget_exhausted', 'budget:tokens', `token budget of ${charged.budgets.tokens} spent`, now);
  const receipt = { tokens, contextTokens, ...origin };
  if (extracting) return onExtracted(charged, extracting, value, now, receipt);

  const parsed = PlanReply.safeParse(value);
  const problem = parsed.success ? checkPlan(parsed.data, charged, domain) : describeIssues(parsed.error.issues);
  if (!parsed.success || problem) return reject(charged, now, { proposal: 'a plan', code: 'invalid_plan', message: problem ?? 'not a plan', ...receipt });
  const { steps, finish, reason } = parsed.data;
  const named = steps.map((s) => ('tool' in s ? `${s.id} ${s.tool}` : `${s.id} extract from ${s.extract.from}`));
  const receipted = withDecisionReceipt(charged, now, {
    proposal: `plan: ${[...named, ...(finish ? ['finish'] : [])].join(', ')}`.slice(0, 500),
    accepted: true,
    reason: 'planned',
    evidenceIds: [],
    ...receipt,
  });
  // The plan runs from the next turn, so a model asked again is never asked under the same proposal index.
  return proposeOrStop(
    {
      ...receipted,
      plan: { steps, ...(finish ? { finish } : {}), ...(reason ? { reason } : {}), done: {}, writtenAt: state.seq, shown: shownValues(state), sealed: true },
      replan: undefined,
    },
    now,
  );
}

/**
 * An extractor's value becomes evidence of its own: untrusted, tied to the read it came from, and
 * the extraction step's result. A reply that is not a value of the asked type is no value (the
 * step failed, and the planner is asked again).
 */
function onExtracted(state: RunState, stepId: string, value: unknown, now: number, receipt: Origin & { tokens: number; contextTokens: number }): RunState {
  const plan = state.plan;
  const source = plan && extractionSource(plan, state, stepId);
  if (!plan || !source?.from)
    return reject(state, now, { proposal: `extract ${stepId}`, code: 'invalid_plan', message: `${stepId} has nothing to read`, ...receipt });
  const parsed = ExtractedReply.safeParse(value);
  const wanted = source.step.extract.type ?? 'string';
  const found = parsed.success && parsed.data.value !== null && typeof parsed.data.value === wanted ? parsed.data.value : null;
  const evidence = extractedEvidence(state, source.from, source.step.extract.want, source.step.extract.kind, found, now);
  const kept: RunState = {
    ...state,
    seq: state.seq + 1,
    evidence: [...state.evidence, evidence],
    transcript: [...state.transcript, { kind: 'observation', turn: state.turn, evidenceId: evidence.id }],
    plan: { ...plan, extracting: undefined, done: { ...plan.done, [stepId]: evidence.id } },
  };
  const receipted = withDecisionReceipt(kept, now, {
    proposal: `extract ${stepId} from ${source.from.id}`,
    accepted: true,
    reason: found === null ? 'no_value' : 'extracted',
    evidenceIds: [source.from.id],
    ...receipt,
  });
  return proposeOrStop(receipted, now);
}
