// The controller: next(state, event) -> { state, command }. Pure: no I/O, no clock (time comes
// on the event), no randomness, no exceptions for anything a model or a tool can cause. The
// command is derived from the state alone, so the workflow can always ask "what now?".
import type { Domain, ToolContract } from '../contract.js';
import { findDomain } from '../../domains/index.js';
import { budgetLeft, exhaustedBudget } from './budget.js';
import type { Command } from './commands.js';
import { compileContext } from './context.js';
import { compactJson, parseDecision, summarizeDecision, type Decision } from './decision.js';
import type { ProbeVerdict, ReadbackResult, RunEvent, ToolResult } from './events.js';
import { admitCalls } from './gate.js';
import { callSignature } from './loop-guard.js';
import { adaptResult, viewOf } from './observation.js';
import { fold } from './retention.js';
import type { Budgets, ContextStrategy } from '../contract.js';
import { STATE_VERSION, type Evidence, type PlannedCall, type RunState, type TerminalClass } from './state.js';

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
}

export function initialState(run: NewRun): RunState {
  return {
    version: STATE_VERSION,
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

export function next(state: RunState, event: RunEvent): Step {
  const domain = findDomain(state.domain);
  if (!domain) throw new Error(`bug: run state names unknown domain ${state.domain}`);
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
      return onDeadline(state, event.now);
    case 'noteAdded':
      return {
        ...state,
        transcript: [...state.transcript, { kind: 'note', turn: state.turn, by: event.by, text: event.text.slice(0, 2_000) }],
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
    case 'approved':
    case 'denied':
    case 'approvalTimedOut':
      expectPhase(state, 'awaiting_approval', event.type);
      return onApprovalOutcome(state, event);
  }
}

// ---------------------------------------------------------------- turns and proposals

function proposeOrStop(state: RunState, now: number): RunState {
  if (deadlineReached(state, now)) return onDeadline(state, now);
  const exhausted = exhaustedBudget(state, now);
  if (exhausted) return stop(state, 'budget_exhausted', `budget:${exhausted.budget}`, exhausted.detail, now);
  return { ...state, phase: 'proposing', turn: state.turn + 1, pendingClaim: undefined };
}

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

type ReceiptBase = { proposal: string; tokens: number; contextTokens: number };

function onCall(state: RunState, domain: Domain, decision: Extract<Decision, { type: 'call' }>, now: number, receipt: ReceiptBase): RunState {
  // A reply that lands after the deadline (the model call is the slow part) starts nothing.
  if (deadlineReached(state, now)) {
    return onDeadline(withDecisionReceipt(state, now, { ...receipt, accepted: false, reason: 'budget:deadline', evidenceIds: [] }), now);
  }
  const admission = admitCalls(state, domain, decision);
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
  if (first && approval) {
    return {
      ...receipted,
      phase: 'awaiting_approval',
      pendingApproval: {
        requestId: `${state.runId}/approval/${first.callId}`,
        call: first,
        evidenceIds: latestEvidenceIds(state),
        roles: approval.roles,
        requestedAt: now,
        expiresAt: now + (state.approvalTimeoutMs ?? approval.timeoutMs),
        onTimeout: approval.onTimeout,
      },
    };
  }
  return startCalls(receipted, admission.calls);
}

/** Charges the budgets and opens the effects ledger entries, then the workflow runs the calls. */
function startCalls(state: RunState, calls: PlannedCall[]): RunState {
  const effects = calls.filter((c) => c.kind === 'effect');
  return {
    ...state,
    phase: 'acting',
    used: { ...state.used, toolCalls: state.used.toolCalls + calls.length, effects: state.used.effects + effects.length },
    inFlight: calls,
    effects: [
      ...state.effects,
      ...effects.map((c) => ({
        callId: c.callId,
        turn: c.turn,
        tool: c.tool,
        args: c.args,
        key: c.idempotencyKey ?? '',
        status: 'in_flight' as const,
        attempts: 1,
        readbacks: 0,
      })),
    ],
  };
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
  const views = state.evidence.map((e) => viewOf(e, now));
  const cited = views.filter((v) => decision.evidence.includes(v.id));
  const verdict = domain.judgeEvidence(claim.data, cited, views);
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
  return proposeOrStop(next, now);
}

/** One result becomes evidence, updates facts, receipts, the loop guard and the effects ledger. */
function absorb(state: RunState, domain: Domain, call: PlannedCall, result: ToolResult): RunState {
  const contract = contractOf(domain, call.tool);
  const evidence = adaptResult(contract, result, `e${state.seq + 1}`);
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
  for (const [key, value] of Object.entries(evidence.facts)) {
    if (!(key in out) || out[key]?.value !== value) changed = true;
    out[key] = { value, evidenceId: evidence.id };
  }
  return { pinned: out, changed };
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
    const evidence = adaptResult(contract, asResult, `e${state.seq + 1}`);
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
    const call: PlannedCall = { callId: effect.callId, turn: effect.turn, tool: effect.tool, args: effect.args, kind: 'effect', idempotent: true, idempotencyKey: effect.key };
    return { ...notApplied, phase: 'acting', inFlight: [call], effects: replaceEffect(state.effects, retry) };
  }
  const settled = { ...notApplied, effects: replaceEffect(state.effects, { ...counted, status: 'not_applied' as const, settledBy: 'readback' as const }) };
  return proposeOrStop(control(settled, 'effect_not_applied', `${effect.tool} did not take effect (read back by key ${effect.key})`), now);
}

function replaceEffect(effects: RunState['effects'], updated: RunState['effects'][number]): RunState['effects'] {
  return effects.map((e) => (e.callId === updated.callId ? updated : e));
}

// ---------------------------------------------------------------- approvals

function onApprovalOutcome(
  state: RunState,
  event: Extract<RunEvent, { type: 'approved' | 'denied' | 'approvalTimedOut' }>,
): RunState {
  const request = state.pendingApproval;
  if (!request || request.requestId !== event.requestId) throw new Error(`bug: approval event for ${event.requestId}, which is not pending`);
  const now = event.now;
  if (event.type === 'approvalTimedOut') {
    const closed = withApprovalClosed(state, 'timed_out', 'timer', 'no decision before the approval deadline', now);
    if (request.onTimeout === 'escalate') return stop(closed, 'escalated', 'approval_timeout', `no decision on ${request.call.tool} in time`, now);
    return proposeOrStop(control(closed, 'approval_timeout', `no one approved ${request.call.tool} in time`), now);
  }
  if (event.type === 'denied') {
    const closed = withApprovalClosed(state, 'denied', event.by, event.comment, now);
    return proposeOrStop(control(closed, 'approval_denied', `${event.by} denied ${request.call.tool}${event.comment ? `: ${event.comment}` : ''}`), now);
  }
  const closed = withApprovalClosed(state, 'approved', event.by, event.comment, now);
  // Re-check at execution time: hours may have passed since the request.
  if (deadlineReached(closed, now)) return onDeadline(closed, now);
  if (closed.used.effects + 1 > closed.budgets.effects || closed.used.toolCalls + 1 > closed.budgets.toolCalls) {
    return proposeOrStop(control(closed, 'over_budget', 'approved, but the budget no longer allows this effect'), now);
  }
  if (closed.effects.some((e) => e.status === 'unknown' || e.status === 'in_flight')) {
    return proposeOrStop(control(closed, 'effect_in_doubt', 'approved, but an earlier effect is still in doubt'), now);
  }
  return startCalls(closed, [request.call]);
}

function withApprovalClosed(state: RunState, decision: 'approved' | 'denied' | 'timed_out' | 'cancelled', by: string, comment: string, now: number): RunState {
  const request = state.pendingApproval;
  if (!request) return state;
  return {
    ...state,
    pendingApproval: undefined,
    approvals: [...state.approvals, { requestId: request.requestId, callId: request.call.callId, turn: request.call.turn, decision, by, comment: comment.slice(0, 500), at: now }],
  };
}

// ---------------------------------------------------------------- endings and feedback

function deadlineReached(state: RunState, now: number): boolean {
  return budgetLeft(state, now).msLeft <= 0;
}

/** A cancel never hides an effect in doubt: the run then says so instead of "cancelled". */
function onCancel(state: RunState, by: string, reason: string, now: number): RunState {
  const doubt = state.effects.find((e) => e.status === 'unknown' || e.status === 'in_flight');
  if (doubt) {
    return stop(state, 'unknown_outcome', 'cancelled_with_effect_in_doubt', `cancelled by ${by} while ${doubt.tool} (key ${doubt.key}) was not settled`, now);
  }
  return stop(withApprovalClosed(state, 'cancelled', by, reason, now), 'cancelled', 'operator_cancel', `cancelled by ${by}: ${reason}`, now);
}

function onDeadline(state: RunState, now: number): RunState {
  const doubt = state.effects.find((e) => e.status === 'unknown' || e.status === 'in_flight');
  if (doubt) {
    return stop(state, 'unknown_outcome', 'deadline_with_effect_in_doubt', `${doubt.tool} (key ${doubt.key}) was not settled before the deadline`, now);
  }
  return stop(withApprovalClosed(state, 'cancelled', 'deadline', 'run deadline passed', now), 'budget_exhausted', 'budget:deadline', `deadline of ${state.budgets.deadlineMs} ms passed`, now);
}

function stop(state: RunState, terminalClass: TerminalClass, reason: string, detail: string, now: number): RunState {
  return { ...state, phase: 'terminal', inFlight: [], pendingClaim: undefined, pendingApproval: undefined, terminal: { class: terminalClass, reason, detail, at: now } };
}

function control(state: RunState, code: string, message: string): RunState {
  return { ...state, transcript: [...state.transcript, { kind: 'control', turn: state.turn, code, message }] };
}

function reject(
  state: RunState,
  now: number,
  r: { proposal: string; code: string; message: string; tokens: number; contextTokens: number; evidenceIds?: string[] },
): RunState {
  const receipted = withDecisionReceipt(state, now, { proposal: r.proposal, accepted: false, reason: r.code, evidenceIds: r.evidenceIds ?? [], tokens: r.tokens, contextTokens: r.contextTokens });
  return proposeOrStop(control(receipted, r.code, r.message), now);
}

function withDecisionReceipt(
  state: RunState,
  now: number,
  r: { proposal: string; accepted: boolean; reason: string; evidenceIds: string[]; tokens: number; contextTokens: number },
): RunState {
  return { ...state, decisions: [...state.decisions, { turn: state.turn, at: now, ...r, budgetLeft: budgetLeft(state, now) }] };
}

function latestEvidenceIds(state: RunState): string[] {
  return [...new Set(Object.values(state.pinned).map((p) => p.evidenceId))].slice(-10);
}

function contractOf(domain: Domain, tool: string): ToolContract {
  const contract = domain.tools.find((t) => t.name === tool);
  if (!contract) throw new Error(`bug: ${tool} is not a tool of ${domain.name}`);
  return contract;
}

function expectPhase(state: RunState, phase: RunState['phase'], event: string): void {
  if (state.phase !== phase) throw new Error(`bug: ${event} arrived in phase ${state.phase}, expected ${phase}`);
}
