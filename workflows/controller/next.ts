// The controller: next(state, event) -> { state, command }. Pure: no I/O, no clock (time comes
// on the event), no randomness, no exceptions for anything a model or a tool can cause. The
// command is derived from the state alone, so the workflow can always ask "what now?".
import type { Budgets, ContextStrategy, Domain } from '../contract.js';
import { caseSubject } from '../contract.js';
import { dispatchIfStillValid, onApprovalOutcome, onApproversLoaded, raiseApproval } from './approvals.js';
import type { Command } from './commands.js';
import { compileContext } from './context.js';
import { compactJson, parseDecision, summarizeDecision, type Decision } from './decision.js';
import type { ProbeVerdict, ReadbackResult, RunEvent, ToolResult } from './events.js';
import { admitCalls } from './gate.js';
import { callSignature } from './loop-guard.js';
import { adaptResult, viewOf } from './observation.js';
import { fold } from './retention.js';
import { STATE_VERSION, type Evidence, type PlannedCall, type RunState } from './state.js';
import { effectsDoneTo, evidenceAbout } from './subject.js';
import {
  contractOf,
  control,
  deadlineReached,
  latestEvidenceIds,
  onCancel,
  onDeadline,
  proposeOrStop,
  reject,
  startCalls,
  stop,
  withDecisionReceipt,
  type ReceiptBase,
} from './transitions.js';

export interface Step {
  state: RunState;
  command: Command;
}

export interface NewRun {
  runId: string;
  domain: Domain;
  caseId: string;
  budgets: Budgets;
  context: { strategy: ContextStrategy; window: number };
  approvalTimeoutMs?: number;
  now: number;
  /** 2 for every new run; absent only when replaying runs recorded before the trust boundary. */
  guardVersion?: 2;
  approverScope?: string[];
}

export function initialState(run: NewRun): RunState {
  return {
    version: STATE_VERSION,
    ...(run.guardVersion ? { guardVersion: run.guardVersion } : {}),
    ...(run.approverScope ? { approverScope: run.approverScope } : {}),
    runId: run.runId,
    domain: run.domain.name,
    caseId: run.caseId,
    goal: run.domain.goal(run.caseId),
    startedAt: run.now,
    deadlineAt: run.now + run.budgets.deadlineMs,
    budgets: run.budgets,
    used: { toolCalls: 0, effects: 0, duplicates: 0, tokens: 0 },
    context: run.context,
    phase: 'proposing',
    turn: 0,
    seq: 0,
    factsVersion: 0,
    pinned: {},
    evidence: [],
    transcript: [],
    decisions: [],
    executions: [],
    effects: [],
    approvals: [],
    seen: {},
    nudges: 0,
    inFlight: [],
    dropped: { evidence: 0, transcript: 0, decisions: 0, executions: 0, effects: 0 },
    ...(run.approvalTimeoutMs ? { approvalTimeoutMs: run.approvalTimeoutMs } : {}),
  };
}

export function next(state: RunState, event: RunEvent, domain: Domain): Step {
  if (domain.name !== state.domain) throw new Error(`bug: run state of ${state.domain} given domain ${domain.name}`);
  const after = fold(reduce(state, event, domain));
  return { state: after, command: commandFor(after, domain, event.now) };
}

/** What the workflow should do in this state. Same state, same command: safe to ask again. */
export function commandFor(state: RunState, domain: Domain, now: number): Command {
  if (state.terminal) return { type: 'stop', terminal: state.terminal };
  switch (state.phase) {
    case 'proposing':
      return { type: 'propose', context: compileContext(state, domain, now), proposalIndex: state.turn - 1 };
    case 'acting':
      return { type: 'invoke', calls: state.inFlight };
    case 'verifying':
      return { type: 'verify', claim: state.pendingClaim?.claim };
    case 'awaiting_approval':
      if (!state.pendingApproval) throw new Error('bug: awaiting approval without a request');
      if (state.guardVersion === 2 && !state.pendingApproval.eligible) return { type: 'loadApprovers', request: state.pendingApproval };
      return { type: 'awaitApproval', request: state.pendingApproval };
    case 'reconciling': {
      const effect = state.effects.find((e) => e.status === 'unknown');
      const readbackTool = effect && contractOf(domain, effect.tool).readback;
      if (!effect || !readbackTool) throw new Error('bug: reconciling without an effect that has a readback');
      return { type: 'readback', effect, readbackTool };
    }
    case 'terminal':
      throw new Error('bug: terminal phase without a terminal record');
  }
}

function reduce(state: RunState, event: RunEvent, domain: Domain): RunState {
  if (state.terminal) return state; // a finished run ignores late events
  switch (event.type) {
    case 'started':
      return proposeOrStop(state, event.now);
    case 'cancelled':
      return onCancel(state, event.by, event.reason, event.now);
    case 'deadlinePassed':
      // With the trust boundary the deadline moves (it pauses while a person decides), so a
      // timer set for the old one may fire early; and a waiting approval is bounded by its own expiry.
      if (state.guardVersion === 2 && (event.now < state.deadlineAt || state.phase === 'awaiting_approval')) return state;
      return onDeadline(state, event.now);
    case 'noteAdded':
      return {
        ...state,
        transcript: [
          ...state.transcript,
          { kind: 'note', turn: state.turn, by: event.by, text: event.text.slice(0, 2_000), ...(event.trusted !== undefined ? { trusted: event.trusted } : {}) },
        ],
      };
    case 'proposed':
      expectPhase(state, 'proposing', event.type);
      return onProposal(state, domain, event.reply, event.tokens, event.contextTokens, event.now);
    case 'modelFailed':
      expectPhase(state, 'proposing', event.type);
      return stop(state, 'failed', 'model_error', event.message.slice(0, 300), event.now);
    case 'observed':
      expectPhase(state, 'acting', event.type);
      return onObserved(state, domain, event.results, event.now);
    case 'verified':
      expectPhase(state, 'verifying', event.type);
      return onVerified(state, event.verdict, event.now);
    case 'reconciled':
      expectPhase(state, 'reconciling', event.type);
      return onReconciled(state, domain, event.result, event.now);
    case 'approversLoaded':
      if (state.phase !== 'awaiting_approval') return state;
      return onApproversLoaded(state, event, event.now);
    case 'approved':
    case 'denied':
    case 'approvalTimedOut':
      // A person's decision can arrive at any moment; out of phase it changes nothing.
      if (state.guardVersion === 2 && state.phase !== 'awaiting_approval') return state;
      expectPhase(state, 'awaiting_approval', event.type);
      return onApprovalOutcome(state, domain, event);
  }
}

// ---------------------------------------------------------------- turns and proposals

function onProposal(state: RunState, domain: Domain, reply: unknown, tokens: number, contextTokens: number, now: number): RunState {
  const charged: RunState = { ...state, used: { ...state.used, tokens: state.used.tokens + Math.max(0, tokens) } };
  const parsed = parseDecision(reply);
  if (!parsed.ok) {
    return reject(charged, now, { proposal: `unparseable: ${compactJson(reply, 120)}`, code: 'invalid_proposal', message: parsed.problem, tokens, contextTokens });
  }
  const decision = parsed.decision;
  const summary = summarizeDecision(decision);
  const proposed: RunState = { ...charged, transcript: [...charged.transcript, { kind: 'proposal', turn: state.turn, summary }] };
  if (proposed.used.tokens > proposed.budgets.tokens) {
    const receipted = withDecisionReceipt(proposed, now, { proposal: summary, accepted: false, reason: 'budget:tokens', evidenceIds: [], tokens, contextTokens });
    return stop(receipted, 'budget_exhausted', 'budget:tokens', `token budget of ${state.budgets.tokens} spent`, now);
  }
  const receiptBase = { proposal: summary, tokens, contextTokens };
  switch (decision.type) {
    case 'escalate': {
      const receipted = withDecisionReceipt(proposed, now, { ...receiptBase, accepted: true, reason: 'model_escalation', evidenceIds: [] });
      return stop(receipted, 'escalated', 'model_escalation', decision.reason, now);
    }
    case 'finish':
      return onFinish(proposed, domain, decision, now, receiptBase);
    case 'call':
      return onCall(proposed, domain, decision, now, receiptBase);
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
      return reject(nudged, now, { ...receipt, code: admission.code, message: admission.message });
    }
    case 'stop': {
      const receipted = withDecisionReceipt(state, now, { ...receipt, accepted: false, reason: admission.code, evidenceIds: [] });
      return stop(receipted, admission.terminalClass, admission.code, admission.message, now);
    }
    case 'admit':
      break;
  }
  const [first] = admission.calls;
  const approval = first && first.kind === 'effect' ? contractOf(domain, first.tool).approval : undefined;
  const numbered = { ...state, seq: state.seq + admission.calls.length }; // the call ids are taken
  const receipted = withDecisionReceipt(numbered, now, {
    ...receipt,
    accepted: true,
    reason: approval ? 'awaiting_approval' : 'admitted',
    evidenceIds: latestEvidenceIds(state),
  });
  if (first && approval) return raiseApproval(receipted, domain, first, admission.precondition, now);
  return startCalls(receipted, admission.calls);
}

function onFinish(state: RunState, domain: Domain, decision: Extract<Decision, { type: 'finish' }>, now: number, receipt: ReceiptBase): RunState {
  const claim = domain.claim.safeParse(decision.claim);
  if (!claim.success) {
    return reject(state, now, { ...receipt, code: 'invalid_claim', message: 'the claim does not match this domain\'s claim shape' });
  }
  const missing = decision.evidence.filter((id) => !state.evidence.some((e) => e.id === id));
  if (missing.length) {
    return reject(state, now, { ...receipt, code: 'unknown_evidence', message: `no evidence with id ${missing.join(', ')}` });
  }
  const guarded = state.guardVersion === 2;
  // With the trust boundary, only evidence about what the claim names is judged.
  const subject = guarded ? claimSubjectOf(domain, claim.data, state.caseId) : undefined;
  const views = subject !== undefined ? evidenceAbout(state, subject, now) : state.evidence.map((e) => viewOf(e, now));
  const cited = views.filter((v) => decision.evidence.includes(v.id));
  if (subject !== undefined && cited.length < decision.evidence.length) {
    const elsewhere = decision.evidence.filter((id) => !cited.some((v) => v.id === id));
    return reject(state, now, { ...receipt, code: 'unsupported_finish', message: `evidence ${elsewhere.join(', ')} is not about ${subject}`, evidenceIds: decision.evidence });
  }
  if (subject !== undefined && domain.judgeDone) {
    const done = guardedCall(() => domain.judgeDone?.(claim.data, effectsDoneTo(state, subject)) ?? { ok: true as const });
    if (!done.ok) return reject(state, now, { ...receipt, code: 'unsupported_finish', message: done.reason, evidenceIds: decision.evidence });
  }
  const judged = guardedCall(() => {
    const v = domain.judgeEvidence(claim.data, cited, views);
    return { ok: true as const, v };
  });
  if (!judged.ok) return reject(state, now, { ...receipt, code: 'unsupported_finish', message: judged.reason, evidenceIds: decision.evidence });
  const verdict = judged.v;
  if (verdict.kind === 'conflict') {
    const receipted = withDecisionReceipt(state, now, { ...receipt, accepted: false, reason: 'conflict', evidenceIds: decision.evidence });
    return stop(receipted, 'escalated', 'conflict', verdict.reason, now);
  }
  if (verdict.kind === 'unsupported') {
    return reject(state, now, { ...receipt, code: 'unsupported_finish', message: verdict.reason, evidenceIds: decision.evidence });
  }
  const receipted = withDecisionReceipt(state, now, { ...receipt, accepted: true, reason: 'verifying', evidenceIds: decision.evidence });
  return { ...receipted, phase: 'verifying', pendingClaim: { claim: claim.data, evidenceIds: decision.evidence } };
}

function onVerified(state: RunState, verdict: ProbeVerdict, now: number): RunState {
  const probe = probeEvidence(state, verdict);
  const withProbe: RunState = {
    ...state,
    seq: state.seq + 1,
    evidence: [...state.evidence, probe],
    transcript: [...state.transcript, { kind: 'observation', turn: state.turn, evidenceId: probe.id }],
    executions: [
      ...state.executions,
      { callId: probe.callId, turn: state.turn, tool: 'probe', kind: 'probe', accepted: true, result: verdict.decided ? 'final' : 'unknown', attempt: 1, durationMs: 0, evidenceId: probe.id },
    ],
  };
  if (verdict.decided && verdict.holds) {
    return stop(withProbe, 'resolved', 'probe_confirmed', verdict.detail, now);
  }
  if (verdict.conflict) return stop(withProbe, 'escalated', 'conflict', verdict.detail, now);
  const code = verdict.decided ? 'probe_failed' : 'probe_undecided';
  const fedBack = control(withProbe, code, `finish rejected: ${verdict.detail}`);
  return proposeOrStop(fedBack, now);
}

function probeEvidence(state: RunState, verdict: ProbeVerdict): Evidence {
  const id = `e${state.seq + 1}`;
  return {
    id,
    callId: `probe-${id}`,
    tool: 'probe',
    source: 'probe',
    authority: 'authoritative',
    observedAt: verdict.checkedAt,
    effectiveAt: verdict.checkedAt,
    maxAgeMs: 60_000,
    fresh: verdict.decided,
    status: verdict.decided ? 'ok' : 'unknown',
    facts: verdict.facts,
    quoted: [],
    textWithheld: false,
  };
}

// ---------------------------------------------------------------- observations and effects

function onObserved(state: RunState, domain: Domain, results: ToolResult[], now: number): RunState {
  const byCall = new Map(results.map((r) => [r.callId, r]));
  if (byCall.size !== results.length || results.length !== state.inFlight.length || !state.inFlight.every((c) => byCall.has(c.callId))) {
    throw new Error('bug: every call in flight must have exactly one result');
  }
  let next: RunState = { ...state, inFlight: [] };
  for (const call of state.inFlight) {
    const result = byCall.get(call.callId) as ToolResult;
    next = absorb(next, domain, call, result);
  }
  if (next.effects.some((e) => e.status === 'unknown')) return { ...next, phase: 'reconciling' };
  if (next.pendingDispatch) return dispatchIfStillValid(next, domain, now);
  return proposeOrStop(next, now);
}

/** One result becomes evidence, updates facts, receipts, the loop guard and the effects ledger. */
function absorb(state: RunState, domain: Domain, call: PlannedCall, result: ToolResult): RunState {
  const contract = contractOf(domain, call.tool);
  const evidence = withSubject(adaptResult(contract, result, `e${state.seq + 1}`), call.subject);
  const { pinned, changed } = pinFacts(state.pinned, evidence);
  const factsVersion = changed ? state.factsVersion + 1 : state.factsVersion;
  const effectStatus =
    call.kind !== 'effect' ? undefined : evidence.status === 'ok' ? 'applied' : result.status === 'error' && result.errorClass === 'semantic' ? 'failed' : 'unknown';
  return {
    ...state,
    seq: state.seq + 1,
    factsVersion,
    pinned,
    evidence: [...state.evidence, evidence],
    transcript: [...state.transcript, { kind: 'observation', turn: call.turn, evidenceId: evidence.id }],
    seen: remember(state.seen, callSignature(call.tool, call.args), { factsVersion, status: evidence.status }),
    executions: [
      ...state.executions,
      {
        callId: call.callId,
        turn: call.turn,
        tool: call.tool,
        kind: call.kind,
        accepted: !(result.status === 'error' && result.errorClass === 'semantic'),
        result: receiptResult(result, effectStatus, evidence.status),
        attempt: result.attempt,
        durationMs: Math.max(0, result.finishedAt - result.startedAt),
        ...(call.idempotencyKey ? { idempotencyKey: call.idempotencyKey } : {}),
        evidenceId: evidence.id,
      },
    ],
    effects: effectStatus
      ? state.effects.map((e) =>
          e.callId === call.callId
            ? { ...e, status: effectStatus, ...(effectStatus === 'unknown' ? {} : { settledBy: 'response' as const, evidenceId: evidence.id }) }
            : e,
        )
      : state.effects,
  };
}

/** Re-inserts the signature last, so retention keeps the most recently used ones. */
function remember(seen: RunState['seen'], signature: string, value: RunState['seen'][string]): RunState['seen'] {
  const { [signature]: _previous, ...rest } = seen;
  return { ...rest, [signature]: value };
}

function receiptResult(result: ToolResult, effectStatus: string | undefined, evidenceStatus: Evidence['status']): 'final' | 'failed' | 'timeout' | 'unknown' {
  if (effectStatus === 'unknown') return 'unknown';
  // An `ok` whose output broke the contract is a failed call (bad_output), as its evidence says.
  if (result.status === 'ok') return evidenceStatus === 'ok' ? 'final' : 'failed';
  if (result.status === 'timeout') return 'timeout';
  if (result.status === 'unknown') return 'unknown';
  return 'failed';
}

function pinFacts(pinned: RunState['pinned'], evidence: Evidence): { pinned: RunState['pinned']; changed: boolean } {
  if (evidence.status !== 'ok') return { pinned, changed: false };
  let changed = false;
  const out = { ...pinned };
  for (const [fact, value] of Object.entries(evidence.facts)) {
    // One transfer's status must not overwrite another's: facts are pinned per subject.
    const key = evidence.subject ? `${evidence.subject} ${fact}` : fact;
    if (!(key in out) || out[key]?.value !== value) changed = true;
    out[key] = { value, evidenceId: evidence.id };
  }
  return { pinned: out, changed };
}

function withSubject(evidence: Evidence, subject: string | undefined): Evidence {
  return subject ? { ...evidence, subject } : evidence;
}

function claimSubjectOf(domain: Domain, claim: unknown, caseId: string): string {
  const named = guardedCall(() => ({ ok: true as const, v: domain.claimSubject?.(claim, caseId) }));
  return named.ok && typeof named.v === 'string' && named.v ? named.v : caseSubject(caseId);
}

/** A domain callback that throws becomes a refusal with its reason, never a failed workflow task. */
function guardedCall<T extends { ok: true }>(fn: () => T | { ok: false; reason: string }): T | { ok: false; reason: string } {
  try {
    return fn();
  } catch (err) {
    return { ok: false, reason: `the domain's check failed: ${err instanceof Error ? err.message.slice(0, 200) : 'error'}` };
  }
}

function onReconciled(state: RunState, domain: Domain, result: ReadbackResult, now: number): RunState {
  const effect = state.effects.find((e) => e.callId === result.callId && e.status === 'unknown');
  if (!effect) throw new Error(`bug: readback for ${result.callId}, which is not in doubt`);
  const contract = contractOf(domain, effect.tool);
  const counted = { ...effect, readbacks: effect.readbacks + result.attempts };
  const receipt = (outcome: 'final' | 'unknown', evidenceId?: string) => ({
    callId: effect.callId,
    turn: state.turn,
    tool: contract.readback ?? 'readback',
    kind: 'readback' as const,
    accepted: true,
    result: outcome,
    attempt: result.attempts,
    durationMs: 0,
    idempotencyKey: effect.key,
    ...(evidenceId ? { evidenceId } : {}),
  });

  if (result.outcome === 'undecided') {
    const updated = { ...state, effects: replaceEffect(state.effects, counted), executions: [...state.executions, receipt('unknown')] };
    return stop(updated, 'unknown_outcome', 'readback_undecided', `${effect.tool} (key ${effect.key}): ${result.detail}`, now);
  }
  if (result.outcome === 'applied') {
    // Record the effect as committed and its readback as evidence; never run it again.
    const asResult: ToolResult = { status: 'ok', callId: effect.callId, output: result.output, attempt: effect.attempts, startedAt: now, finishedAt: now };
    const evidence = withSubject(adaptResult(contract, asResult, `e${state.seq + 1}`), effect.subject);
    const { pinned, changed } = pinFacts(state.pinned, evidence);
    const factsVersion = changed ? state.factsVersion + 1 : state.factsVersion;
    const applied: RunState = {
      ...state,
      seq: state.seq + 1,
      pinned,
      factsVersion,
      evidence: [...state.evidence, evidence],
      transcript: [...state.transcript, { kind: 'observation', turn: state.turn, evidenceId: evidence.id }],
      seen: remember(state.seen, callSignature(effect.tool, effect.args), { factsVersion, status: 'ok' }),
      effects: replaceEffect(state.effects, { ...counted, status: 'applied', settledBy: 'readback', evidenceId: evidence.id }),
      executions: [...state.executions, receipt('final', evidence.id)],
    };
    return proposeOrStop(applied, now);
  }
  // not_applied: an effect the system dedupes by key may go again with the same key, once;
  // otherwise the model hears that it did not happen and decides.
  const notApplied: RunState = { ...state, executions: [...state.executions, receipt('final')] };
  if (contract.idempotent && counted.attempts < 2 && !deadlineReached(state, now)) {
    const retry = { ...counted, status: 'in_flight' as const, attempts: counted.attempts + 1 };
    const call: PlannedCall = {
      callId: effect.callId,
      turn: effect.turn,
      tool: effect.tool,
      args: effect.args,
      kind: 'effect',
      idempotent: true,
      idempotencyKey: effect.key,
      ...(effect.subject ? { subject: effect.subject } : {}),
    };
    return { ...notApplied, phase: 'acting', inFlight: [call], effects: replaceEffect(state.effects, retry) };
  }
  const settled = { ...notApplied, effects: replaceEffect(state.effects, { ...counted, status: 'not_applied' as const, settledBy: 'readback' as const }) };
  return proposeOrStop(control(settled, 'effect_not_applied', `${effect.tool} did not take effect (read back by key ${effect.key})`), now);
}

function replaceEffect(effects: RunState['effects'], updated: RunState['effects'][number]): RunState['effects'] {
  return effects.map((e) => (e.callId === updated.callId ? updated : e));
}

function expectPhase(state: RunState, phase: RunState['phase'], event: string): void {
  if (state.phase !== phase) throw new Error(`bug: ${event} arrived in phase ${state.phase}, expected ${phase}`);
}
