// Who proposes a step when it is not the model: the domain's route (shapes `workflow` and
// `hybrid`; a plan is run by controller/plan.ts). It gives a reply shaped exactly like a model's,
// which the controller then judges exactly as it judges a model's: this file decides who
// speaks, never what is allowed. Where the route does not know the way it says what is open,
// and that list is what the model is asked about (or, in `workflow`, why the run escalates).
import { caseSubject, type Domain, type DoneEffect, type RouteStep, type RouteView } from '../contract.js';
import { type EvidenceView } from '../tool-contract.js';
import type { DecidedBy } from '../shape.js';
import { shapeOf, type RunState } from './state.js';
import { effectsDone, groundsFor, sequenceOf } from './subject.js';

/** A step someone other than the model proposes, or what is open for the model. */
export type Proposer = { by: Exclude<DecidedBy, 'model'>; reply: unknown } | { open: string[] };

/** What a route's answer may say at most: it goes into receipts and the model's context. */
const MAX_OPEN_ITEMS = 6;
const MAX_OPEN_CHARS = 200;

export function proposerFor(state: RunState, domain: Domain, now: number): Proposer {
  switch (shapeOf(state)) {
    case 'react':
      return { open: ['shape react: the model decides every step'] };
    case 'plan':
      // A plan is run by proposals.ts (controller/plan.ts) before any proposer is asked.
      return { open: ['shape plan: the plan decides'] };
    case 'workflow':
    case 'hybrid':
      return fromRoute(state, domain, now);
  }
}

/** The last refusal or rejected finish, if nothing has been observed since: what the last proposal came to. */
export function latestFeedback(state: RunState): { code: string; message: string } | undefined {
  const last = [...state.transcript].reverse().find((t) => t.kind !== 'note');
  return last?.kind === 'control' ? { code: last.code, message: last.message } : undefined;
}

/** Whether the latest decision was taken by `by` and came back refused (or its finish was rejected). */
function cameBack(state: RunState, by: DecidedBy): { code: string; message: string } | undefined {
  const feedback = latestFeedback(state);
  const decision = state.decisions.at(-1);
  return feedback && decision?.by === by ? feedback : undefined;
}

function fromRoute(state: RunState, domain: Domain, now: number): Proposer {
  const route = domain.route;
  if (!route) return { open: [`${domain.name} declares no route`] };
  // A step of the route that was refused, or whose finish the probe rejected, is not asked
  // again unchanged: that is exactly where the route does not know the way.
  const refused = cameBack(state, 'route');
  if (refused) return { open: [`the route's step came back ${refused.code}: ${refused.message}`].map(clip) };
  try {
    if (route.first && state.evidence.length === 0) return routeCalls(route.first(state.caseId), 'the reads this domain always needs, all at once');
    const effect = unreadEffect(state, route.after ? (e) => route.after?.(e) ?? [] : undefined);
    if (effect) return routeCalls(effect.reads, `what ${effect.tool} did`);
    return fromStep(route.decide(routeView(state, now)));
  } catch (err) {
    return { open: [clip(`the route failed: ${err instanceof Error ? err.message : String(err)}`)] };
  }
}

function routeCalls(calls: unknown, why: string): Proposer {
  return { by: 'route', reply: { type: 'call', calls, reason: why } };
}

function fromStep(step: RouteStep | undefined): Proposer {
  if (!step || typeof step !== 'object') return { open: ['the route returned no step'] };
  if ('open' in step) {
    const items = Array.isArray(step.open) ? step.open.filter((o): o is string => typeof o === 'string' && o.trim().length > 0) : [];
    return { open: (items.length ? items : ['the route does not say what is open']).slice(0, MAX_OPEN_ITEMS).map(clip) };
  }
  if ('call' in step) return routeCalls(step.call, step.why);
  if ('finish' in step)
    return { by: 'route', reply: { type: 'finish', outcome: 'resolved', claim: step.finish.claim, evidence: step.finish.evidence, summary: step.why } };
  if ('escalate' in step) return { by: 'route', reply: { type: 'escalate', reason: step.escalate } };
  return { open: ['the route returned no step'] };
}

/**
 * The latest applied effect, when nothing was read about its subject after it and the route
 * names the reads that show what it did. Ids share one counter, so later ids are later reads.
 */
function unreadEffect(state: RunState, after: ((effect: DoneEffect) => unknown) | undefined): { tool: string; reads: unknown } | undefined {
  if (!after) return undefined;
  const effect = [...state.effects].reverse().find((e) => e.status === 'applied');
  if (!effect) return undefined;
  const subject = effect.subject ?? caseSubject(state.caseId);
  const since = sequenceOf(effect.callId);
  const readSince = state.evidence.some((e) => e.callId !== effect.callId && sequenceOf(e.id) > since && (e.subject ?? caseSubject(state.caseId)) === subject);
  if (readSince) return undefined;
  const reads = after({ tool: effect.tool, args: effect.args, subject });
  return Array.isArray(reads) && reads.length > 0 ? { tool: effect.tool, reads } : undefined;
}

/** The run as its route sees it: evidence judged as grounds for an effect on its subject (stale once an effect changed it). */
export function routeView(state: RunState, now: number): RouteView {
  const bySubject = new Map<string, Map<string, EvidenceView>>();
  const evidence = state.evidence.map((e) => {
    const subject = e.subject ?? caseSubject(state.caseId);
    let views = bySubject.get(subject);
    if (!views) {
      views = new Map(groundsFor(state, subject, now).map((v) => [v.id, v] as const));
      bySubject.set(subject, views);
    }
    return views.get(e.id) as EvidenceView;
  });
  const feedback = latestFeedback(state);
  return { caseId: state.caseId, evidence, done: effectsDone(state), ...(feedback ? { feedback } : {}) };
}

/** One line of what is open, as long as receipts and a model's context take it. */
export function clip(text: string): string {
  return text.length > MAX_OPEN_CHARS ? `${text.slice(0, MAX_OPEN_CHARS - 1)}…` : text;
}
