// A cancel ends a run the same way whoever asks (the project's cancel signal, or Temporal's own
// cancellation request from its CLI, Web UI or client): nothing new starts, and an effect that
// is in flight or in doubt is first read back by its key, so the terminal can say whether it
// took effect. Only a readback that cannot decide leaves the run unknown_outcome, naming the
// effect.
import type { Domain } from '../contract.js';
import type { ReadbackResult, RunEvent } from './events.js';
import { readBack } from './readback.js';
import { effectsInDoubt, type In, type RunState } from './state.js';
import { contractOf, stop, withApprovalClosed } from './transitions.js';

type CancelEvent = Extract<RunEvent, { type: 'cancelled' }>;

export function onCancelRequested(state: RunState, domain: Domain, event: CancelEvent): RunState {
  const { by, reason, now } = event;
  const closed = withApprovalClosed(state, 'cancelled', by, reason, now);
  const doubt = effectsInDoubt(closed);
  if (doubt.length === 0) return stopCancelled(closed, by, reason, now);
  const unreadable = doubt.find((e) => !contractOf(domain, e.tool).readback);
  if (unreadable) {
    return stop(
      closed,
      'unknown_outcome',
      'cancelled_with_effect_in_doubt',
      `cancelled by ${by} while ${unreadable.tool} (key ${unreadable.key}) was not settled, and it has no readback`,
      now,
    );
  }
  return {
    ...closed,
    phase: { name: 'cancelling', by, reason, at: now },
    // The workflow takes a cancel only between commands, so an effect still marked in flight was
    // planned and perhaps never sent: whichever it is, its key says.
    effects: closed.effects.map((e) => (e.status === 'in_flight' ? { ...e, status: 'unknown' as const } : e)),
  };
}

/** One effect read back while cancelling (readback.ts): settle it, read back the next one, or stop. */
export function onCancelReadback(state: In<'cancelling'>, domain: Domain, result: ReadbackResult, now: number): RunState {
  const cancelling = state.phase;
  const read = readBack(state, domain, result, now);
  if (read.outcome === 'undecided') {
    const detail = `cancelled by ${cancelling.by} while ${read.effect.tool} (key ${read.effect.key}) was not settled; the readback could not decide: ${result.detail}`;
    return stop(read.state, 'unknown_outcome', 'cancelled_with_effect_in_doubt', detail, now);
  }
  if (read.outcome === 'later') return read.state;
  // Applied: the readback is evidence of what the world holds; no fact is pinned, as no turn follows.
  // Not applied: while cancelling it is never sent again, whatever its contract allows.
  const settled = read.outcome === 'applied' ? read.state : read.settled;
  if (settled.effects.some((e) => e.status === 'unknown')) return settled;
  return stopCancelled(settled, cancelling.by, cancelling.reason, now);
}

/** The terminal names who asked and how the latest effects ended, so "cancelled" hides nothing. */
function stopCancelled(state: RunState, by: string, reason: string, now: number): RunState {
  const effects = state.effects
    .slice(-3)
    .map((e) => `${e.tool} (key ${e.key}) ${e.status.replace('_', ' ')}${e.settledBy === 'readback' ? ' (read back)' : ''}`);
  const detail = `cancelled by ${by}: ${reason}${effects.length ? `; effects: ${effects.join(', ')}` : ''}`;
  return stop(state, 'cancelled', 'operator_cancel', detail, now);
}
