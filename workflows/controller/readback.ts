// A readback by key, taken into the effects ledger: what the system of record says about an
// effect whose outcome the run did not know. One reading for the run's own reconcile
// (observed.ts) and for a cancel's (cancel.ts); each decides only what comes after it. A readback
// that finds nothing is final only when the request can no longer commit (the key was fenced, or
// the contract's commit window has passed).
import type { Domain } from '../contract.js';
import type { ToolContract } from '../tool-contract.js';
import { DEFAULT_COMMIT_WINDOW_MS } from '../policy.js';
import type { ReadbackResult, ToolResult } from './events.js';
import { adaptResult } from './observation.js';
import type { EffectEntry, Evidence, RunState } from './state.js';
import { contractOf } from './transitions.js';

export type ReadBack =
  /** The readback could not decide: the effect stays in doubt, its readbacks counted. */
  | { outcome: 'undecided'; state: RunState; effect: EffectEntry }
  /** Nothing found yet, but the request could still commit: read back again at the effect's recheckAt. */
  | { outcome: 'later'; state: RunState }
  /** Applied: settled by the readback, which is recorded as evidence. */
  | { outcome: 'applied'; state: RunState; effect: EffectEntry; evidence: Evidence }
  /**
   * Not applied: `state` has the receipt and the ledger as it was (the effect may go again);
   * `settled` also marks it not applied, and a reply that said it was applied, contradicted.
   */
  | { outcome: 'not_applied'; state: RunState; settled: RunState; effect: EffectEntry; contract: ToolContract };

export function readBack(state: RunState, domain: Domain, result: ReadbackResult, now: number): ReadBack {
  const effect = state.effects.find((e) => e.callId === result.callId && e.status === 'unknown');
  if (!effect) throw new Error(`bug: readback for ${result.callId}, which is not in doubt`);
  const contract = contractOf(domain, effect.tool);
  const counted: EffectEntry = { ...effect, readbacks: effect.readbacks + result.attempts };
  const receipted = (outcome: 'final' | 'unknown', evidenceId?: string) => [
    ...state.executions,
    {
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
    },
  ];
  if (result.outcome === 'undecided') {
    return { outcome: 'undecided', effect, state: { ...state, effects: replaceEffect(state.effects, counted), executions: receipted('unknown') } };
  }
  const later = recheckLater(counted, contract, result, now);
  if (later) return { outcome: 'later', state: { ...state, effects: replaceEffect(state.effects, later), executions: receipted('unknown') } };
  if (result.outcome === 'applied') {
    const asResult: ToolResult = { status: 'ok', callId: effect.callId, output: result.output, attempt: effect.attempts, startedAt: now, finishedAt: now };
    const adapted = adaptResult(contract, asResult, `e${state.seq + 1}`);
    const evidence = effect.subject ? { ...adapted, subject: effect.subject } : adapted;
    const applied: EffectEntry = {
      ...counted,
      status: 'applied',
      settledBy: 'readback',
      evidenceId: evidence.id,
      ...(effect.claim ? { claim: 'confirmed' } : {}),
    };
    return {
      outcome: 'applied',
      effect,
      evidence,
      state: {
        ...state,
        seq: state.seq + 1,
        evidence: [...state.evidence, evidence],
        transcript: [...state.transcript, { kind: 'observation', turn: state.turn, evidenceId: evidence.id }],
        effects: replaceEffect(state.effects, applied),
        executions: receipted('final', evidence.id),
      },
    };
  }
  const told: RunState = { ...state, executions: receipted('final') };
  const notApplied: EffectEntry = { ...counted, status: 'not_applied', settledBy: 'readback', ...(effect.claim ? { claim: 'contradicted' } : {}) };
  return { outcome: 'not_applied', state: told, settled: { ...told, effects: replaceEffect(state.effects, notApplied) }, effect: counted, contract };
}

/**
 * A readback found nothing, but the request could still commit and the key was not fenced: the
 * effect stays in doubt until the contract's commit window has passed, and is read back again
 * then, before the run (or the model, or a person reading "cancelled") believes it did not happen.
 */
function recheckLater(effect: EffectEntry, contract: ToolContract, result: ReadbackResult, now: number): EffectEntry | undefined {
  if (result.outcome !== 'not_applied' || result.fenced || effect.recheckAt !== undefined) return undefined;
  const until = (effect.sentAt ?? now) + (contract.commitWindowMs ?? DEFAULT_COMMIT_WINDOW_MS);
  return now < until ? { ...effect, recheckAt: until } : undefined;
}

export function replaceEffect(effects: RunState['effects'], updated: EffectEntry): RunState['effects'] {
  return effects.map((e) => (e.callId === updated.callId ? updated : e));
}
