// Refresh before refusing. A model turn can take longer than the evidence it rests on stays
// fresh (a slow model, a loaded machine, a person who answered late), and a proposal judged on
// such evidence would be refused for staleness alone, costing a model turn to re-read it and,
// one read per turn, perhaps never getting everything fresh at once. Instead the engine re-reads
// what went stale itself: the reads that produced it, with their own arguments, all in one
// parallel call, at most once per proposal and within the tool-call budget; then it judges the
// same proposal again on what they say now. Only evidence that was fresh when it came and has
// aged since is re-read: a source that was already stale when it answered (a lagging replica)
// has nothing newer to say.
import type { Domain } from '../contract.js';
import { factReference } from './trusted-facts.js';
import { callSignature } from './bounds.js';
import type { Evidence, PlannedCall, RunState } from './state.js';
import { groundsFor, viewOf } from './subject.js';

/** The refusals that fresher evidence can change: a precondition, an argument's provenance, a finish's support. */
export const REFRESHABLE_REFUSALS: ReadonlySet<string> = new Set(['precondition_failed', 'tainted_argument', 'unsupported_finish']);

/** At most this many reads in one refresh: a proposal rests on a handful of sources, not a sweep. */
export const MAX_REFRESH_READS = 4;

/**
 * The reads to repeat before judging an effect on `subject` again: for each read of the domain
 * whose latest answer about the subject went stale (by the clock, or because an effect on the
 * subject came after it), that read with the same arguments; none when nothing went stale.
 * `cited`: a finish's evidence ids; only the reads that produced them count.
 */
export function staleReadsFor(state: RunState, domain: Domain, subject: string, now: number, cited?: readonly string[]): PlannedCall[] {
  const grounds = new Map(groundsFor(state, subject, now).map((v) => [v.id, v]));
  const latest = new Map<string, Evidence>();
  for (const e of state.evidence) {
    if (e.args === undefined || !grounds.has(e.id)) continue;
    latest.set(callSignature(e.tool, e.args), e);
  }
  // A finish rests on what it cites: only those reads are worth repeating for it.
  if (cited) {
    const wanted = new Set(state.evidence.filter((e) => cited.includes(e.id) && e.args !== undefined).map((e) => callSignature(e.tool, e.args)));
    for (const signature of [...latest.keys()]) if (!wanted.has(signature)) latest.delete(signature);
  }
  const reads: PlannedCall[] = [];
  for (const e of latest.values()) {
    const contract = domain.tools.find((t) => t.name === e.tool && t.kind === 'read');
    const judged = grounds.get(e.id);
    // Went stale: usable when it came, not any more. A lagging source's answer never was fresh.
    const wentStale = e.status === 'ok' && e.fresh && judged !== undefined && !judged.fresh;
    if (!contract || !wentStale) continue;
    const callId = `c${state.seq + reads.length + 1}`;
    reads.push({ callId, turn: state.turn, tool: contract.name, args: e.args, kind: 'read', idempotent: contract.idempotent, subject });
    if (reads.length >= MAX_REFRESH_READS) break;
  }
  return reads;
}

/**
 * Whether an observation made a fact usable again without changing its value: the evidence it
 * replaces for that fact had gone stale (or was never fresh), and this one is fresh. That is
 * progress for the loop guard: a call refused for staleness may be proposed again.
 */
export function regainedFreshness(state: RunState, evidence: Evidence, now: number): boolean {
  if (evidence.status !== 'ok' || !evidence.fresh) return false;
  return Object.keys(evidence.facts).some((fact) => {
    const pinned = state.pinned[evidence.subject ? `${evidence.subject} ${fact}` : fact];
    const before = pinned && state.evidence.find((e) => e.id === pinned.evidenceId);
    return before !== undefined && !viewOf(before, now).fresh;
  });
}

/** The newest answer of the read that produced evidence `id` (itself when it was not read again). */
export function refreshedId(state: RunState, id: string): string {
  const cited = state.evidence.find((e) => e.id === id);
  if (!cited || cited.args === undefined) return id;
  const signature = callSignature(cited.tool, cited.args);
  const latest = [...state.evidence].reverse().find((e) => e.args !== undefined && callSignature(e.tool, e.args) === signature);
  return latest?.id ?? id;
}

/** A fact reference (`e3.api.previousVersion`) moved to the newest answer of the read that gave it; any other reference as it is. */
export function refreshedReference(state: RunState, ref: string): string {
  const fact = factReference(ref);
  return fact ? `${refreshedId(state, fact.evidenceId)}.${fact.key}` : ref;
}
