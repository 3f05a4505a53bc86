// The small state transitions every handler of the controller shares: the next turn, a stop,
// feedback to the model, receipts, starting calls, the two ways a run runs out of time, and
// closing a request.
import type { Domain } from '../contract.js';
import type { ToolContract } from '../tool-contract.js';
import { budgetLeft, exhaustedBudget } from './bounds.js';
import {
  effectsInDoubt,
  pendingRequest,
  type ApprovalRequest,
  type HeldDispatch,
  type HeldProposal,
  type PlannedCall,
  type RunState,
  type TerminalClass,
} from './state.js';
import type { UsageFloor } from '../protocol.js';
import type { DecidedBy } from '../shape.js';

/** Who proposed a step, what was open, and for a model call whose usage was floored, the floor (all on the receipt). */
export type Origin = { by?: DecidedBy; open?: string[]; usageFloor?: UsageFloor };
export type ReceiptBase = { proposal: string; tokens: number; contextTokens: number } & Origin;

export function deadlineReached(state: RunState, now: number): boolean {
  return budgetLeft(state, now).msLeft <= 0;
}

export function proposeOrStop(state: RunState, now: number): RunState {
  if (deadlineReached(state, now)) return onDeadline(state, now);
  const exhausted = exhaustedBudget(state, now);
  if (exhausted) return stop(state, 'budget_exhausted', `budget:${exhausted.budget}`, exhausted.detail, now);
  return { ...state, phase: { name: 'proposing' }, turn: state.turn + 1 };
}

export function stop(state: RunState, terminalClass: TerminalClass, reason: string, detail: string, now: number): RunState {
  return { ...state, phase: { name: 'terminal' }, terminal: { class: terminalClass, reason, detail, at: now } };
}

export function control(state: RunState, code: string, message: string): RunState {
  return { ...state, transcript: [...state.transcript, { kind: 'control', turn: state.turn, code, message }] };
}

export function reject(
  state: RunState,
  now: number,
  r: { proposal: string; code: string; message: string; tokens: number; contextTokens: number; evidenceIds?: string[] } & Origin,
): RunState {
  const receipted = withDecisionReceipt(state, now, {
    proposal: r.proposal,
    accepted: false,
    reason: r.code,
    evidenceIds: r.evidenceIds ?? [],
    tokens: r.tokens,
    contextTokens: r.contextTokens,
    ...(r.by ? { by: r.by } : {}),
    ...(r.open ? { open: r.open } : {}),
    ...(r.usageFloor ? { usageFloor: r.usageFloor } : {}),
  });
  return proposeOrStop(control(receipted, r.code, r.message), now);
}

export function withDecisionReceipt(
  state: RunState,
  now: number,
  r: { proposal: string; accepted: boolean; reason: string; evidenceIds: string[]; tokens: number; contextTokens: number } & Origin,
): RunState {
  const { by, open, usageFloor, ...rest } = r;
  const origin = { ...(by ? { by } : {}), ...(open ? { open } : {}), ...(usageFloor ? { usageFloor } : {}) };
  return { ...state, decisions: [...state.decisions, { turn: state.turn, at: now, ...rest, budgetLeft: budgetLeft(state, now), ...origin }] };
}

/**
 * Charges the budgets and opens the effects ledger entries, then the workflow runs the calls:
 * for a proposal (`acting`), or the engine's own re-reads, holding what waits on them
 * (`refreshing`: a proposal judged again after; `rereading`: an approved effect dispatched after).
 */
export function startCalls(state: RunState, planned: PlannedCall[], now: number, holding?: { held: HeldProposal } | { dispatch: HeldDispatch }): RunState {
  // An effect's request carries when it was sent, so a fenced key refuses it if it arrives late.
  const calls = planned.map((c) => (c.kind === 'effect' ? { ...c, sentAt: now } : c));
  const effects = calls.filter((c) => c.kind === 'effect');
  return {
    ...state,
    phase: !holding
      ? { name: 'acting', calls }
      : 'held' in holding
        ? { name: 'refreshing', calls, held: holding.held }
        : { name: 'rereading', calls, dispatch: holding.dispatch },
    used: { ...state.used, toolCalls: state.used.toolCalls + calls.length, effects: state.used.effects + effects.length },
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
        ...(c.subject ? { subject: c.subject } : {}),
        ...(c.unvouched?.length ? { onPersonsWord: c.unvouched } : {}),
        ...(c.settleMs ? { settleMs: c.settleMs } : {}),
        sentAt: now,
      })),
    ],
  };
}

/** A cancel never hides an effect in doubt: the run then says so instead of "cancelled". */
export function onDeadline(state: RunState, now: number): RunState {
  const [doubt] = effectsInDoubt(state);
  if (doubt) {
    return stop(state, 'unknown_outcome', 'deadline_with_effect_in_doubt', `${doubt.tool} (key ${doubt.key}) was not settled before the deadline`, now);
  }
  return stop(
    withApprovalClosed(state, 'cancelled', 'deadline', 'run deadline passed', now),
    'budget_exhausted',
    'budget:deadline',
    `deadline of ${state.budgets.deadlineMs} ms passed`,
    now,
  );
}

/**
 * The pending request closed with `decision`: recorded, and the run's clock started again. The run
 * leaves `awaiting_approval` for `proposing` here; the caller moves it on from there (the next
 * turn, a stop, the re-read before dispatch, another request).
 */
export function withApprovalClosed(
  state: RunState,
  decision: 'approved' | 'denied' | 'timed_out' | 'cancelled' | 'amended',
  by: string,
  comment: string,
  now: number,
  signed?: ApprovalRequest['collected'],
  amendment?: RunState['approvals'][number]['amendment'],
): RunState {
  const request = pendingRequest(state);
  if (!request) return state;
  // The run's clock stops while a person decides: the approval's own expiry bounds that wait,
  // and the deadline resumes when the request closes.
  const paused = Math.max(0, now - request.requestedAt);
  return {
    ...state,
    phase: { name: 'proposing' },
    deadlineAt: state.deadlineAt + paused,
    approvals: [
      ...state.approvals,
      {
        requestId: request.requestId,
        callId: request.call.callId,
        turn: request.call.turn,
        decision,
        by,
        comment: comment.slice(0, 500),
        at: now,
        ...(signed && signed.length ? { signed } : {}),
        ...(amendment ? { amendment } : {}),
        ...(request.display ? { display: request.display } : {}),
      },
    ],
  };
}

export function latestEvidenceIds(state: RunState): string[] {
  return [...new Set(Object.values(state.pinned).map((p) => p.evidenceId))].slice(-10);
}

export function contractOf(domain: Domain, tool: string): ToolContract {
  const contract = domain.tools.find((t) => t.name === tool);
  if (!contract) throw new Error(`bug: ${tool} is not a tool of ${domain.name}`);
  return contract;
}
