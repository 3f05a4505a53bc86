// Repetition is the failure ReAct agents fall into most. A call is a repeat when the same tool
// with the same arguments already ran and nothing new has been learnt since.
import { canonical } from '../trust/statement.js';
import { viewOf } from './observation.js';
import type { RunState } from './state.js';

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
