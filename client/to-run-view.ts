// The one mapping from the workflow's state query answer to RunView (run-view.ts), and the
// reading of an earlier release's answer as this release's. Kept apart from the schema so the
// schema reads as what a program may rely on, and this as how the engine's state is made into it.
import { headline, loadState, pendingRequest, shownPhase } from '../workflows/controller/index.js';
import type { RunView as StateAnswer } from '../workflows/messages.js';
import { RunView, type PendingApproval } from './run-view.js';

/** The one mapping from the workflow's state query answer to what clients see. */
export function toRunView(answer: StateAnswer): RunView {
  const st = answer.state;
  const pending = pendingRequest(st);
  const optional = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as { [P in K]: V }));
  // An observation's turn is its transcript entry's; a receipt's turn stands in once retention dropped that entry.
  const turnOfEvidence = new Map<string, number>();
  for (const t of st.transcript) if (t.kind === 'observation') turnOfEvidence.set(t.evidenceId, t.turn);
  for (const e of st.executions) if (e.evidenceId !== undefined && !turnOfEvidence.has(e.evidenceId)) turnOfEvidence.set(e.evidenceId, e.turn);
  return RunView.parse({
    runId: st.runId,
    domain: st.domain,
    caseId: st.caseId,
    goal: st.goal,
    chain: st.chain,
    phase: shownPhase(st.phase),
    terminal: st.terminal ? { class: st.terminal.class, reason: st.terminal.reason, detail: st.terminal.detail, at: st.terminal.at } : null,
    // From a worker that predates the run's own headline: the engine's summary of the effects ledger.
    ...optional('headline', answer.headline ?? headline(st)),
    startedAt: st.startedAt,
    deadlineAt: st.deadlineAt,
    budgets: { limits: st.budgets, used: { turns: st.turn, ...st.used }, left: answer.budgetLeft },
    // The run's clock stops while a person decides.
    deadlinePaused: st.phase.name === 'awaiting_approval',
    effects: st.effects.map((e) => ({
      callId: e.callId,
      turn: e.turn,
      tool: e.tool,
      args: e.args,
      key: e.key,
      status: e.status,
      attempts: e.attempts,
      readbacks: e.readbacks,
      ...optional('settledBy', e.settledBy),
      ...optional('subject', e.subject),
    })),
    start: { signed: !!(st.starterClaim ?? answer.input?.start), ...optional('by', st.starter) },
    ...optional('model', answer.input ? modelOf(answer.input.model) : undefined),
    ...optional('shape', st.shape ?? answer.input?.shape),
    awaiting: answer.awaiting && pending ? awaitingOf(answer.awaiting, pending.call.turn, st.decisions) : null,
    ...optional('approvalTools', answer.approvalTools),
    approvals: st.approvals.map((a) => ({
      requestId: a.requestId,
      turn: a.turn,
      decision: a.decision,
      by: a.by,
      comment: a.comment,
      at: a.at,
      signatures: (a.signed ?? []).map((s) => ({ by: s.statement.by, decision: s.statement.decision, signature: s.signature })),
    })),
    decisions: st.decisions,
    executions: st.executions,
    messages: st.transcript.filter((t) => t.kind === 'control' || t.kind === 'note'),
    dropped: { decisions: st.dropped.decisions, executions: st.dropped.executions, evidence: st.dropped.evidence },
    evidence: {
      total: st.evidence.length + st.dropped.evidence,
      items: st.evidence.map((e) => ({
        id: e.id,
        ...optional('turn', turnOfEvidence.get(e.id)),
        tool: e.tool,
        source: e.source,
        authority: e.authority,
        status: e.status,
        fresh: e.fresh,
        observedAt: e.observedAt,
        effectiveAt: e.effectiveAt,
        maxAgeMs: e.maxAgeMs,
        ...optional('subject', e.subject),
        ...optional('args', e.args),
        facts: e.facts,
        ...optional('error', e.error),
        quoted: e.quoted,
        textWithheld: e.textWithheld,
        ...optional('truncated', e.truncated),
      })),
    },
  });
}

/** The pending request with its turn and who proposed it (the last accepted receipt of that turn: a re-judged proposal leaves two). */
function awaitingOf(awaiting: NonNullable<StateAnswer['awaiting']>, turn: number, decisions: StateAnswer['state']['decisions']): PendingApproval {
  const receipt = decisions.filter((d) => d.turn === turn && d.accepted).at(-1);
  return { ...awaiting, turn, ...(receipt?.by ? { proposedBy: receipt.by } : {}) };
}

/** The model config as a client may show it: the adapter, and the model or adapter it names; never scripted replies. */
function modelOf(model: NonNullable<StateAnswer['input']>['model']): { adapter: string; name?: string } {
  if (model.adapter === 'openai') return model.model ? { adapter: 'openai', name: model.model } : { adapter: 'openai' };
  if (model.adapter === 'custom') return { adapter: 'custom', name: model.name };
  return { adapter: model.adapter };
}

/**
 * A worker of an earlier release (its runs finish on the build that started them) answers with
 * its own state: the phase a name, its data beside it. Read as this release's (load-state.ts), so
 * every view of it works; an answer that does not read is handed on as it came.
 */
export function currentAnswer(answer: StateAnswer): StateAnswer {
  if (typeof (answer.state as { phase?: unknown }).phase === 'object') return answer;
  const loaded = loadState(answer.state);
  return loaded.ok ? { ...answer, state: loaded.state } : answer;
}
