// Turns and proposals: a proposal, whoever made it (the model, the domain's route, the model's
// plan), is parsed, charged to the budgets, receipted and judged here, by one onProposal, so no
// proposer can reach the gate by another way. next.ts routes events here; admission.ts judges calls.
import type { Domain } from '../contract.js';
import { raiseApproval } from './approval-request.js';
import { compactJson, parseDecision, summarizeDecision, type Decision } from './decision.js';
import type { RunEvent } from './events.js';
import { claimSubjectOf, onFinish } from './finish.js';
import { admitCalls } from './admission.js';
import { chargeSpend, fold } from './bounds.js';
import { clip, proposerFor } from './route.js';
import { FINISH_STEP, outcomesOf, planNext, settlePlan } from './plan.js';
import { EXTRACTED, extractionSource } from './plan-extraction.js';
import type { PlanOutcome } from './plan-schema.js';
import { takePlannerReply } from './plan-replies.js';
import { REFRESHABLE_REFUSALS, refreshedId, refreshedReference, staleReadsFor } from './refresh.js';
import { shapeOf, type HeldProposal, type In, type PlannedCall, type RunState } from './state.js';
import { subjectOfCall } from './subject.js';
import {
  contractOf,
  control,
  deadlineReached,
  latestEvidenceIds,
  onDeadline,
  proposeOrStop,
  reject,
  startCalls,
  stop,
  withDecisionReceipt,
  type Origin,
  type ReceiptBase,
} from './transitions.js';

/** More steps than this in a row without a model call, within one event, and the route is not making progress. */
const MAX_STEPS_WITHOUT_MODEL = 6;

/**
 * In a run with a shape, whoever is not the model proposes first (controller/route.ts): the
 * domain's route, or the model's plan. Their proposals go through onProposal like a model's
 * reply, with no tokens. Where they leave the step open, the model is asked about what is open
 * (`hybrid`, `plan`, `react`), or the run escalates (`workflow`). Runs without a shape (all
 * recorded before shapes) never get here.
 */
export function stepsWithoutModel(state: RunState, domain: Domain, now: number): RunState {
  if (!state.shape) return state;
  let current = state;
  for (let i = 0; current.phase.name === 'proposing' && !current.terminal; i++) {
    if (shapeOf(current) === 'plan') {
      if (i >= MAX_STEPS_WITHOUT_MODEL) return askPlanner(current, [], [`the plan took ${i} steps in a row without getting anywhere`]);
      const step = planStep(current, domain, now);
      if ('ask' in step) return step.ask;
      current = step.state;
      continue;
    }
    const proposer =
      i < MAX_STEPS_WITHOUT_MODEL ? proposerFor(current, domain, now) : { open: [`the route took ${i} steps in a row without getting anywhere`] };
    if ('open' in proposer) {
      if (shapeOf(current) !== 'workflow') return { ...current, phase: { name: 'proposing', open: proposer.open } };
      const receipted = withDecisionReceipt(current, now, {
        proposal: 'escalate: the route cannot decide',
        accepted: true,
        reason: 'route_undecided',
        evidenceIds: [],
        tokens: 0,
        contextTokens: 0,
        by: 'route',
        open: proposer.open,
      });
      return stop(receipted, 'escalated', 'route_undecided', proposer.open.join('; ').slice(0, 300), now);
    }
    const taken: RunState = { ...current, phase: { name: 'proposing' } };
    current = fold(onProposal(taken, domain, { reply: proposer.reply, tokens: 0, contextTokens: 0, now, origin: { by: proposer.by } }));
  }
  return current;
}

/**
 * Shape `plan`: the plan's next step, proposed by `plan` and judged like any proposal; or the
 * model asked, for an extraction, or as the planner when there is no plan (or it came back).
 */
function planStep(state: RunState, domain: Domain, now: number): { ask: RunState } | { state: RunState } {
  if (!state.plan) return { ask: askPlanner(state, state.replan ?? [], state.replan ? [] : ['shape plan: nothing is planned yet']) };
  const settled = settlePlan(state.plan, state, domain);
  if ('replan' in settled) return { ask: askPlanner(state, settled.replan) };
  const plan = settled.plan;
  const next = planNext(plan, state, domain);
  if ('replan' in next) return { ask: askPlanner(state, next.replan) };
  if ('extract' in next) {
    const source = extractionSource(plan, state, next.extract);
    if (!source?.from || source.from.status !== 'ok') {
      const done = outcomesOf(plan, state).filter((o) => o.outcome === 'ok');
      return { ask: askPlanner(state, [...done, { step: next.extract, tool: EXTRACTED, outcome: 'unresolved', code: 'no_evidence' }]) };
    }
    const what = clip(`extract ${next.extract} from ${source.from.id}: ${source.step.extract.want}`);
    return { ask: { ...state, plan: { ...plan, extracting: next.extract }, phase: { name: 'proposing', open: [what] } } };
  }
  const reply =
    'finish' in next
      ? { type: 'finish', outcome: 'resolved', claim: next.finish.claim, evidence: next.finish.evidence, ...(plan.reason ? { summary: plan.reason } : {}) }
      : {
          type: 'call',
          calls: next.calls.map((c) => ({
            tool: c.tool,
            args: c.args,
            ...(Object.keys(c.sources).length ? { sources: c.sources } : {}),
            ...(Object.keys(c.derive).length ? { derive: c.derive } : {}),
          })),
          reason: `the plan's ${next.steps.join(', ')}`,
        };
  const sent = { steps: 'finish' in next ? [FINISH_STEP] : next.steps, seq: state.seq };
  const taken: RunState = { ...state, phase: { name: 'proposing' }, plan: { ...plan, sent } };
  return { state: fold(onProposal(taken, domain, { reply, tokens: 0, contextTokens: 0, now, origin: { by: 'plan' } })) };
}

/** The planner is asked (again): the plan is dropped, and what came of its steps is what it is told, as codes. */
function askPlanner(state: RunState, outcomes: PlanOutcome[], lines: string[] = []): RunState {
  const told = outcomes.map((o) => clip(`${o.step} ${o.tool}: ${o.outcome}${codeOf(o)}${o.evidenceId ? ` -> ${o.evidenceId}` : ''}`));
  return { ...state, plan: undefined, replan: outcomes, phase: { name: 'proposing', open: [...lines, ...told].slice(0, MAX_OPEN_LINES) } };
}

const MAX_OPEN_LINES = 12;

/** ` (precondition_failed; needs get_user_information)`: the code, and the reads a refused precondition names. */
function codeOf(o: PlanOutcome): string {
  if (!o.code) return '';
  return o.needs ? ` (${o.code}; needs ${o.needs.join(', ')})` : ` (${o.code})`;
}

/** A model's reply: counted, judged with what was open recorded beside it; in shape `plan` a plan or an extracted value is taken as such. */
export function onModelReply(state: In<'proposing'>, domain: Domain, event: Extract<RunEvent, { type: 'proposed' }>): RunState {
  const shaped = state.shape !== undefined;
  const open = state.phase.open;
  const counted: RunState = shaped ? { ...state, phase: { name: 'proposing' }, used: { ...state.used, modelCalls: (state.used.modelCalls ?? 0) + 1 } } : state;
  const origin: Origin = {
    by: 'model',
    ...(shaped && open ? { open } : {}),
    ...(event.usageFloor ? { usageFloor: event.usageFloor } : {}),
  };
  const planned = shapeOf(state) === 'plan' ? takePlannerReply(counted, domain, event, origin) : undefined;
  if (planned) return planned;
  const { reply, tokens, contextTokens, now, costMicros } = event;
  return onProposal(counted, domain, { reply, tokens, contextTokens, now, origin, ...(costMicros !== undefined ? { costMicros } : {}) });
}

/** One proposal, whoever made it: what it said, what it cost, when, and who proposed it. */
interface Proposal {
  reply: unknown;
  /** Tokens the model call used and the context it was shown (0 for a route or a plan). */
  tokens: number;
  contextTokens: number;
  /** What the call cost by the worker's price table; absent when it was not priced. */
  costMicros?: number;
  now: number;
  origin: Origin;
}

function onProposal(state: RunState, domain: Domain, proposal: Proposal): RunState {
  const { reply, tokens, contextTokens, costMicros, now, origin } = proposal;
  const spend = chargeSpend({ ...state, used: { ...state.used, tokens: state.used.tokens + Math.max(0, tokens) } }, costMicros);
  const charged = spend.state;
  const parsed = parseDecision(reply);
  if (!parsed.ok) {
    if (spend.overrun) return stop(charged, 'budget_exhausted', 'budget:spend', spend.overrun.detail, now);
    return reject(charged, now, {
      proposal: `unparseable: ${compactJson(reply, 120)}`,
      code: 'invalid_proposal',
      message: parsed.problem,
      tokens,
      contextTokens,
      ...origin,
    });
  }
  const decision = parsed.decision;
  const summary = summarizeDecision(decision);
  // The model reads the transcript: a step it did not propose says who did.
  const said = origin.by && origin.by !== 'model' ? `${origin.by}: ${summary}` : summary;
  const proposed: RunState = { ...charged, transcript: [...charged.transcript, { kind: 'proposal', turn: state.turn, summary: said }] };
  if (proposed.used.tokens > proposed.budgets.tokens) {
    const receipted = withDecisionReceipt(proposed, now, {
      proposal: summary,
      accepted: false,
      reason: 'budget:tokens',
      evidenceIds: [],
      tokens,
      contextTokens,
      ...origin,
    });
    return stop(receipted, 'budget_exhausted', 'budget:tokens', `token budget of ${state.budgets.tokens} spent`, now);
  }
  if (spend.overrun) {
    const receipted = withDecisionReceipt(proposed, now, {
      proposal: summary,
      accepted: false,
      reason: 'budget:spend',
      evidenceIds: [],
      tokens,
      contextTokens,
      ...origin,
    });
    return stop(receipted, 'budget_exhausted', 'budget:spend', spend.overrun.detail, now);
  }
  const receiptBase: ReceiptBase = { proposal: summary, tokens, contextTokens, ...origin };
  switch (decision.type) {
    case 'escalate': {
      const reason = origin.by === 'route' ? 'route_escalation' : 'model_escalation';
      const receipted = withDecisionReceipt(proposed, now, { ...receiptBase, accepted: true, reason, evidenceIds: [] });
      return stop(receipted, 'escalated', reason, decision.reason, now);
    }
    case 'finish':
    case 'call':
      return judge(proposed, domain, decision, now, receiptBase, true);
  }
}

function onCall(state: RunState, domain: Domain, decision: Extract<Decision, { type: 'call' }>, now: number, receipt: ReceiptBase): RunState {
  // A reply that lands after the deadline (the model call is the slow part) starts nothing.
  if (deadlineReached(state, now)) {
    return onDeadline(withDecisionReceipt(state, now, { ...receipt, accepted: false, reason: 'budget:deadline', evidenceIds: [] }), now);
  }
  const admission = admitCalls(state, domain, decision, now);
  switch (admission.kind) {
    case 'refuse': {
      const counted = admission.duplicate ? { ...state, used: { ...state.used, duplicates: state.used.duplicates + 1 } } : state;
      const nudged = admission.code === 'loop_nudge' ? { ...counted, nudges: counted.nudges + 1 } : counted;
      const remembered = admission.signature ? rememberRefusal(nudged, admission.signature) : nudged;
      return reject(remembered, now, { ...receipt, code: admission.code, message: admission.message });
    }
    case 'stop': {
      const receipted = withDecisionReceipt(state, now, { ...receipt, accepted: false, reason: admission.code, evidenceIds: [] });
      return stop(receipted, admission.terminalClass, admission.code, admission.message, now);
    }
    case 'admit':
      break;
  }
  const [first] = admission.calls;
  const approval = admission.ask?.rule ?? (first && first.kind === 'effect' ? contractOf(domain, first.tool).approval : undefined);
  const numbered = { ...state, seq: state.seq + admission.calls.length }; // the call ids are taken
  const receipted = withDecisionReceipt(numbered, now, {
    ...receipt,
    accepted: true,
    reason: approval ? 'awaiting_approval' : 'admitted',
    evidenceIds: latestEvidenceIds(state),
  });
  if (first && approval) return raiseApproval(receipted, domain, first, admission.precondition, now, admission.ask);
  return startCalls(receipted, admission.calls, now);
}

type Judged = Extract<Decision, { type: 'call' | 'finish' }>;

/**
 * A call or a finish, judged. When the verdict is a refusal that fresher evidence could change
 * (controller/refresh.ts) and evidence about its subject went stale, the engine re-reads that
 * first, all at once, and judges the same proposal again when the reads are in; once per
 * proposal, and only when the tool-call budget leaves room for the reads (and a call after them).
 */
function judge(state: RunState, domain: Domain, decision: Judged, now: number, receipt: ReceiptBase, mayRefresh: boolean): RunState {
  const judged = decision.type === 'call' ? onCall(state, domain, decision, now, receipt) : onFinish(state, domain, decision, now, receipt);
  const verdict = judged.decisions.at(-1);
  // Never past the deadline, and never instead of a stop (the refusal ended the run: turns spent).
  if (!mayRefresh || deadlineReached(state, now) || judged.terminal) return judged;
  if (judged.decisions.length !== state.decisions.length + 1 || !verdict || verdict.accepted || !REFRESHABLE_REFUSALS.has(verdict.reason)) return judged;
  const subject = subjectOf(state, domain, decision);
  const reads = subject === undefined ? [] : staleReadsFor(state, domain, subject, now, decision.type === 'finish' ? decision.evidence : undefined);
  const room = state.budgets.toolCalls - state.used.toolCalls - (decision.type === 'call' ? 1 : 0);
  if (reads.length === 0 || reads.length > room) return judged;
  const why = [...judged.transcript].reverse().find((t) => t.kind === 'control');
  return startRefresh(state, decision, reads, now, receipt, why?.kind === 'control' ? why.message : verdict.reason);
}

/** What a proposal is about: the subject of its one effect, or of its claim. */
function subjectOf(state: RunState, domain: Domain, decision: Judged): string | undefined {
  if (decision.type === 'finish') return claimSubjectOf(domain, decision.claim, state.caseId);
  const [call] = decision.calls;
  const contract = domain.tools.find((t) => t.name === call?.tool);
  const args = contract?.input.safeParse(call?.args);
  if (decision.calls.length !== 1 || !contract || contract.kind !== 'effect' || !args?.success) return undefined;
  return subjectOfCall(contract, args.data, state.caseId);
}

/** The stale reads go out, all at once; the proposal waits beside them, receipted as refreshing. */
function startRefresh(state: RunState, decision: Judged, reads: PlannedCall[], now: number, receipt: ReceiptBase, why: string): RunState {
  const named = reads.map((r) => `${r.tool}(${compactJson(r.args, 60)})`).join(', ');
  const receipted = withDecisionReceipt({ ...state, seq: state.seq + reads.length }, now, {
    ...receipt,
    accepted: false,
    reason: 'refreshing',
    evidenceIds: [],
  });
  const told = control(receipted, 'refreshing', `${why}; the engine re-reads ${named} and judges the proposal again on what they say now`.slice(0, 500));
  const { proposal, by, open } = receipt;
  return startCalls(told, reads, now, { held: { decision, proposal, ...(by ? { by } : {}), ...(open ? { open } : {}) } });
}

/**
 * After the refresh reads: the same proposal, judged again on what they said, with no second
 * refresh. Its references to evidence that was re-read (a finish's citations, a call's sources
 * and derivation operands) point at the new answers, which must still hold the values.
 */
export function rejudgeAfterRefresh(cleared: RunState, pending: HeldProposal, domain: Domain, now: number): RunState {
  const parsed = parseDecision(pending.decision);
  if (!parsed.ok || (parsed.decision.type !== 'call' && parsed.decision.type !== 'finish')) return proposeOrStop(cleared, now);
  const moved = (ref: string) => refreshedReference(cleared, ref);
  const decision =
    parsed.decision.type === 'finish'
      ? { ...parsed.decision, evidence: parsed.decision.evidence.map((id) => refreshedId(cleared, id)) }
      : { ...parsed.decision, calls: parsed.decision.calls.map((call) => withMovedReferences(call, moved)) };
  const { proposal, by, open } = pending;
  return judge(cleared, domain, decision, now, { proposal, tokens: 0, contextTokens: 0, ...(by ? { by } : {}), ...(open ? { open } : {}) }, false);
}

type ProposedCall = Extract<Decision, { type: 'call' }>['calls'][number];

/** A call whose fact references `move` maps: each cited source, and each operand of a declared derivation. */
function withMovedReferences(call: ProposedCall, move: (ref: string) => string): ProposedCall {
  const sources =
    call.sources && Object.fromEntries(Object.entries(call.sources).map(([arg, refs]) => [arg, Array.isArray(refs) ? refs.map(move) : move(refs)]));
  const derive =
    call.derive &&
    Object.fromEntries(
      Object.entries(call.derive).map(([arg, d]) => [
        arg,
        typeof d === 'string'
          ? d
          : { ...d, operands: Object.fromEntries(Object.entries(d.operands).map(([n, o]) => [n, typeof o === 'string' ? move(o) : o])) },
      ]),
    );
  return { ...call, ...(sources ? { sources } : {}), ...(derive ? { derive } : {}) };
}

/** The gate said no to this exact call at this state of knowledge; the loop guard remembers it. */
function rememberRefusal(state: RunState, signature: string): RunState {
  return { ...state, seen: { ...state.seen, [signature]: { factsVersion: state.factsVersion, status: 'error', refused: true, gate: true } } };
}
