// What `watch` shows, as data: each new receipt, feedback, note and approval step of a run,
// once and in order, then its terminal record. The cursor turns successive state views into
// these items; AgentClient.watch yields them and the CLI prints them with describeItem.
import type { ApprovalRequest, DecisionReceipt, ExecutionReceipt, RunState, Terminal } from '../workflows/controller/state.js';
import type { RunView } from '../workflows/messages.js';
import { compact, duration, isoTime } from './format.js';

/** What AgentClient.watch yields: each decision, execution, feedback, note and approval step of a run, once and in order, then its terminal. */
export type WatchItem =
  | ({ type: 'decision' } & DecisionReceipt)
  /** error: why the call failed, from its evidence (absent when it succeeded or retention dropped the evidence). */
  | ({ type: 'execution'; error?: { class: string; message: string } } & ExecutionReceipt)
  | { type: 'control'; turn: number; code: string; message: string }
  /** trusted: signed with a key the worker's directory knows (absent in runs recorded before notes were signed). */
  | { type: 'note'; turn: number; by: string; text: string; trusted?: boolean }
  | {
      type: 'approval_request';
      turn: number;
      requestId: string;
      tool: string;
      args: unknown;
      /** What the call is about, e.g. `transfer:PX-1042` (runs with the trust boundary). */
      subject?: string;
      roles: string[];
      /** Signed approvals needed before the effect may run. */
      quorum: number;
      /** Stated when the precondition did not hold as the request was raised. */
      precondition?: { ok: boolean; reason?: string };
      expiresAt: number;
      /** What the domain shows beside the call (amount, beneficiary...), not signed. */
      display?: Record<string, string>;
    }
  | ({ type: 'approval'; turn: number } & RunState['approvals'][number])
  | ({ type: 'terminal' } & Terminal)
  /** Receipts retention dropped from state before this watch could show them. */
  | { type: 'skipped'; receipts: number };

const rank: Record<WatchItem['type'], number> = { skipped: -1, decision: 0, approval_request: 1, approval: 2, execution: 3, control: 4, note: 5, terminal: 6 };

/**
 * Remembers what has been shown; `take` returns only what is new since the last view.
 * State is bounded (retention drops old records and counts them in `dropped`), so receipts
 * are tracked by absolute position, and transcript entries and approvals by identity.
 */
export class WatchCursor {
  private decisions = 0;
  private executions = 0;
  private readonly shownEntries = new Map<string, number>();
  private readonly shownApprovals = new Set<string>();
  private readonly requests = new Map<string, number>();

  take(view: RunView): WatchItem[] {
    const st = view.state;
    const dropped = st.dropped ?? { decisions: 0, executions: 0 };
    const items: Exclude<WatchItem, { type: 'terminal' | 'skipped' }>[] = [];
    const skipped = Math.max(0, dropped.decisions - this.decisions) + Math.max(0, dropped.executions - this.executions);
    for (const d of st.decisions.slice(Math.max(0, this.decisions - dropped.decisions))) items.push({ type: 'decision', ...d });
    for (const e of st.executions.slice(Math.max(0, this.executions - dropped.executions))) {
      // A failed call's cause is in its evidence: shown with the receipt, not only in export.
      const error = e.evidenceId === undefined ? undefined : st.evidence.find((ev) => ev.id === e.evidenceId)?.error;
      items.push({ type: 'execution', ...e, ...(error ? { error } : {}) });
    }
    this.decisions = dropped.decisions + st.decisions.length;
    this.executions = dropped.executions + st.executions.length;

    // The n-th occurrence of an entry (same turn, same words) is shown once.
    const seenNow = new Map<string, number>();
    for (const t of st.transcript) {
      if (t.kind !== 'control' && t.kind !== 'note') continue;
      const key = JSON.stringify(t);
      const occurrence = (seenNow.get(key) ?? 0) + 1;
      seenNow.set(key, occurrence);
      if (occurrence <= (this.shownEntries.get(key) ?? 0)) continue;
      this.shownEntries.set(key, occurrence);
      if (t.kind === 'control') items.push({ type: 'control', turn: t.turn, code: t.code, message: t.message });
      else items.push({ type: 'note', turn: t.turn, by: t.by, text: t.text, ...(t.trusted !== undefined ? { trusted: t.trusted } : {}) });
    }

    const pending: ApprovalRequest | undefined = st.pendingApproval;
    if (pending && !this.requests.has(pending.requestId)) {
      this.requests.set(pending.requestId, pending.call.turn);
      items.push({
        type: 'approval_request',
        turn: pending.call.turn,
        requestId: pending.requestId,
        tool: pending.call.tool,
        args: pending.call.args,
        ...(pending.subject ? { subject: pending.subject } : {}),
        roles: pending.roles,
        quorum: pending.quorum ?? 1,
        ...(pending.precondition?.ok === false ? { precondition: pending.precondition } : {}),
        expiresAt: pending.expiresAt,
        ...(pending.display ? { display: pending.display } : {}),
      });
    }
    for (const a of st.approvals) {
      if (this.shownApprovals.has(a.requestId)) continue;
      this.shownApprovals.add(a.requestId);
      const turn = (a as { turn?: number }).turn ?? this.requests.get(a.requestId) ?? st.turn;
      items.push({ ...a, type: 'approval', turn });
    }
    // Within one poll: by turn, and within a turn in the order things happen (stable sort).
    items.sort((a, b) => a.turn - b.turn || rank[a.type] - rank[b.type]);
    const out: WatchItem[] = skipped ? [{ type: 'skipped', receipts: skipped }, ...items] : items;
    return st.terminal ? [...out, { type: 'terminal', ...st.terminal }] : out;
  }
}

export function describeItem(item: WatchItem): string {
  switch (item.type) {
    case 'decision':
      return `[turn ${item.turn}] ${decidedBy(item)}${item.proposal} -> ${item.accepted ? 'accepted' : 'rejected'} (${item.reason})${openOf(item)}`;
    case 'execution': {
      // Why it failed, from its evidence: `failed (refused; semantic: 404 transfer_not_found ...)`.
      const why = [...(item.accepted ? [] : ['refused']), ...(item.error ? [`${item.error.class}: ${item.error.message}`] : [])];
      return `[turn ${item.turn}] ${item.kind.padEnd(8)}  ${item.tool} -> ${item.result}${why.length ? ` (${why.join('; ')})` : ''}, attempt ${item.attempt}, ${item.durationMs}ms${item.evidenceId ? `, evidence ${item.evidenceId}` : ''}`;
    }
    case 'control':
      return `[turn ${item.turn}] feedback  ${item.code}: ${item.message}`;
    case 'note': {
      const trust = item.trusted === undefined ? '' : item.trusted ? ' (signed)' : ' (untrusted)';
      return `[turn ${item.turn}] note      ${item.by}${trust}: ${item.text}`;
    }
    case 'approval_request': {
      const about = item.subject ? ` on ${item.subject}` : '';
      const needs = `${item.quorum} approval${item.quorum === 1 ? '' : 's'} from ${item.roles.join(' or ')}`;
      const violated = item.precondition?.ok === false ? `; precondition VIOLATED: ${item.precondition.reason ?? 'no reason given'}` : '';
      const shown = item.display
        ? ` [${Object.entries(item.display)
            .map(([k, v]) => `${k}: ${v}`)
            .join('; ')}]`
        : '';
      return `[turn ${item.turn}] approval  waiting: ${item.tool} ${compact(item.args)}${about}${shown} needs ${needs}${violated} (request ${item.requestId}, expires ${isoTime(item.expiresAt)}, in ${duration(item.expiresAt - Date.now())})`;
    }
    case 'approval': {
      const signed = item.signed?.length ? ` (${item.signed.length} signed statement${item.signed.length === 1 ? '' : 's'})` : '';
      return `[turn ${item.turn}] approval  ${item.decision} by ${item.by}${signed}${item.comment ? `: ${item.comment}` : ''} (request ${item.requestId}, at ${isoTime(item.at)})`;
    }
    case 'skipped':
      return `(${item.receipts} older receipts were dropped from the run's state before they could be shown; they remain in its Temporal history)`;
    case 'terminal':
      return `terminal: ${item.class} (${item.reason})${item.detail ? ` ${item.detail}` : ''}, at ${isoTime(item.at)}`;
  }
}

/** Who proposed it, padded like the other kinds: `proposal` from runs recorded before shapes. */
function decidedBy(item: DecisionReceipt): string {
  return `${item.by ? `${item.by} ` : 'proposal'}`.padEnd(10);
}

/** For a model turn in a shaped run: what the route (or plan) left open, i.e. why the model was asked. */
function openOf(item: DecisionReceipt): string {
  return item.by === 'model' && item.open?.length ? `; asked because: ${item.open.join('; ')}` : '';
}
