// The context compiler: what the model sees each turn. Goal and runtime state always; then the
// transcript under a strategy. `full` re-sends everything (cost grows with the square of the
// run), `window` keeps the last N entries (forgets old findings), `window_pinned` adds the
// latest value of every fact, which does not grow with the number of turns. And the domain's
// runbook hint for the turn (Domain.nextStep): workflow code like every domain callback, it sees
// facts, never outside text, and whatever it returns only goes into the model's context. A hint
// that throws or rambles is dropped or cut, never a failed task.
import type { Domain, NextStepView } from '../contract.js';
import { budgetLeft } from './bounds.js';
import { routeView } from './route.js';
import type { RunState } from './state.js';
import { forExtractor, forPlanner } from './planner-view.js';
import { toContextEvidence, type CompiledContext, type ContextEvidence } from './compiled-context.js';

export type { CompiledContext, ContextEvidence };

export function compileContext(state: RunState, domain: Domain, now: number): CompiledContext {
  const transcript = state.context.strategy === 'full' ? state.transcript : state.transcript.slice(-state.context.window);
  const referenced = new Set(transcript.flatMap((t) => (t.kind === 'observation' ? [t.evidenceId] : [])));
  const evidence = state.evidence.filter((e) => state.context.strategy === 'full' || referenced.has(e.id)).map(toContextEvidence);
  const pinned =
    state.context.strategy === 'window_pinned'
      ? Object.entries(state.pinned).map(([key, p]) => ({ ...splitPinnedKey(key), value: p.value, evidenceId: p.evidenceId }))
      : [];
  const nextStep = nextStepHint(state, domain, now);
  const context: CompiledContext = {
    domain: state.domain,
    caseId: state.caseId,
    goal: state.goal,
    strategy: state.context.strategy,
    runtime: { turn: state.turn, left: budgetLeft(state, now), deadlineAt: state.deadlineAt },
    tools: domain.tools.map((t) => ({ name: t.name, kind: t.kind, description: t.description })),
    transcript: transcript.filter((t) => t.kind !== 'note'),
    evidence,
    pinned,
    // A signed note's typed fields are what a call cites as `request.<field>`.
    notes: state.transcript.flatMap((t) =>
      t.kind === 'note'
        ? [
            {
              by: t.by,
              text: t.text,
              signed: t.trusted === true,
              ...(t.trusted && t.fields ? { fields: t.fields } : {}),
              ...(t.amends ? { amends: t.amends } : {}),
            },
          ]
        : [],
    ),
    ...(nextStep ? { nextStep } : {}),
    ...(state.shape ? { shape: state.shape } : {}),
    ...(state.shape && state.shape !== 'react' && state.phase.name === 'proposing' && state.phase.open ? { open: state.phase.open } : {}),
    tokenEstimate: 0,
  };
  // Shape plan: the planner sees trusted input only; an extractor, one read and nothing to act with.
  const plan = state.shape === 'plan' ? state.plan : undefined;
  const shown =
    state.shape !== 'plan' ? context : plan?.extracting ? forExtractor(context, state, plan, plan.extracting) : forPlanner(context, state, domain, now);
  shown.tokenEstimate = estimateTokens(shown);
  return shown;
}

/** Pinned facts are keyed `<subject> <fact>` (guarded runs) or `<fact>` (runs before subjects). */
function splitPinnedKey(key: string): { key: string; subject?: string } {
  const space = key.indexOf(' ');
  return space < 0 ? { key } : { key: key.slice(space + 1), subject: key.slice(0, space) };
}

/** About four characters a token: close enough to budget with, and the same on replay. */
export function estimateTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}

/** Long enough for a step and the evidence ids it names; a hint is not a document. */
const MAX_HINT_CHARS = 300;

function nextStepHint(state: RunState, domain: Domain, now: number): string | undefined {
  if (!domain.nextStep) return undefined;
  // The view a route gets: evidence from before an effect on its subject no longer counts as fresh.
  const view: NextStepView = routeView(state, now);
  try {
    const hint = domain.nextStep(view);
    return typeof hint === 'string' && hint.trim().length > 0 ? hint.trim().slice(0, MAX_HINT_CHARS) : undefined;
  } catch {
    return undefined;
  }
}
