// Repetition is the failure ReAct agents fall into most. A call is a repeat when the same tool
// with the same arguments already ran and nothing new has been learnt since.
import { canonical } from '../trust/statement.js';
import { viewOf } from './observation.js';
import type { PlannedCall, RunState } from './state.js';

/** Canonical JSON (sorted keys) so {a,b} and {b,a} are the same call. */
export function callSignature(tool: string, args: unknown): string {
  return `${tool}:${canonical(args)}`;
}

/**
 * A repeat without progress: same call, no new facts since, and last time it gave a usable
 * answer or a definite refusal. Repeating after a timeout or an outage is a justified retry.
 */
export function isRepeatWithoutProgress(state: RunState, signature: string): boolean {
  const last = state.seen[signature];
  if (last === undefined || last.factsVersion !== state.factsVersion) return false;
  // A definite "no" (404 transfer_not_found) will say no again: asking again is a loop too.
  return last.status === 'ok' || last.refused === true;
}

/**
 * The latest answer to this exact read was fresh when it came and is not any more (judged now).
 * A source that was already stale when it answered (a lagging replica) tells nothing new when
 * asked again: that stays a loop.
 */
export function answerWentStale(state: RunState, signature: string, now: number): boolean {
  const last = [...state.evidence].reverse().find((e) => e.args !== undefined && callSignature(e.tool, e.args) === signature);
  return last !== undefined && last.status === 'ok' && last.fresh && !viewOf(last, now).fresh;
}

/** A refusal (counted as a duplicate), or the run's stop. */
type RepeatVerdict =
  | { kind: 'refuse'; code: 'loop_nudge' | 'effect_guard'; message: string; duplicate: true }
  | { kind: 'stop'; terminalClass: 'escalated' | 'blocked'; code: 'loop' | 'effect_guard'; message: string };

/**
 * The loop guard and the effect guard, as the gate applies them to one planned call: a repeat
 * with nothing new learnt gets one nudge and then stops the run as a loop; a non-idempotent
 * effect repeated without a newer observation is refused once and then stops the run `blocked`.
 */
export function repeatRefusal(state: RunState, call: PlannedCall, now: number): RepeatVerdict | undefined {
  const signature = callSignature(call.tool, call.args);
  const nudge = (message: string): RepeatVerdict => ({ kind: 'refuse', code: 'loop_nudge', message, duplicate: true });
  const refusedAlready = state.seen[signature]?.gate === true && state.seen[signature]?.factsVersion === state.factsVersion;
  if (refusedAlready) {
    // Insisting on a call the gate refused, with nothing new learnt, is a loop like a repeated read.
    if (state.nudges >= 1)
      return { kind: 'stop', terminalClass: 'escalated', code: 'loop', message: `${call.tool} proposed again, unchanged, after the gate refused it` };
    return nudge(`${call.tool} was refused with these arguments and nothing has changed since; it will be refused again`);
  }
  if (!isRepeatWithoutProgress(state, signature)) return undefined;
  // Reading again what has gone stale is how a run keeps its facts fresh (a slow model turn,
  // a wait for a person): a repeat, but not one without progress.
  if (call.kind === 'read' && answerWentStale(state, signature, now)) return undefined;
  if (call.kind === 'effect' && !call.idempotent) {
    const refusedBefore = state.transcript.some((t) => t.kind === 'control' && t.code === 'effect_guard');
    if (refusedBefore) return { kind: 'stop', terminalClass: 'blocked', code: 'effect_guard', message: `${call.tool} repeated without a newer observation` };
    const message = `${call.tool} already ran with these arguments and nothing new has been observed since; observe before acting again`;
    return { kind: 'refuse', code: 'effect_guard', message, duplicate: true };
  }
  if (state.nudges >= 1) return { kind: 'stop', terminalClass: 'escalated', code: 'loop', message: `${call.tool} repeated again without new facts` };
  return nudge(`${call.tool} with these arguments already answered and nothing changed since; use that evidence or try something else`);
}
