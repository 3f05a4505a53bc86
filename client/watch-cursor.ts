// What `watch` shows, as data: each new receipt, feedback, note and approval step of a run,
// once and in order, then its terminal record. The cursor turns successive RunViews (never the
// engine's state) into these items; AgentClient.watch yields them and the CLI prints them with
// describeItem.
import { compact, duration, isoTime } from './format.js';
import type { RunView } from './run-view.js';

type Decision = RunView['decisions'][number];

/** What AgentClient.watch yields: each decision, execution, feedback, note and approval step of a run, once and in order, then its terminal. */
export type WatchItem =
  | ({ type: 'decision' } & Decision)
  /** error: why the call failed, from its evidence (absent when it succeeded or retention dropped the evidence). */
  | ({ type: 'execution'; error?: { class: string; message: string } } & RunView['executions'][number])
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
  | ({ type: 'approval' } & RunView['approvals'][number])
  | ({ type: 'terminal' } & NonNullable<RunView['terminal']>)
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
  private readonly requests = new Set<string>();

  take(view: RunView): WatchItem[] {
    const dropped = view.dropped;
    const items: Exclude<WatchItem, { type: 'terminal' | 'skipped' }>[] = [];
    const skipped = Math.max(0, dropped.decisions - this.decisions) + Math.max(0, dropped.executions - this.executions);
    for (const d of view.decisions.slice(Math.max(0, this.decisions - dropped.decisions))) items.push({ type: 'decision', ...d });
    for (const e of view.executions.slice(Math.max(0, this.executions - dropped.executions))) {
      // A failed call's cause is in its evidence: shown with the receipt, not only in export.
      const error = e.evidenceId === undefined ? undefined : view.evidence.items.find((ev) => ev.id === e.evidenceId)?.error;
      items.push({ type: 'execution', ...e, ...(error ? { error } : {}) });
    }
    this.decisions = dropped.decisions + view.decisions.length;
    this.executions = dropped.executions + view.executions.length;

    // The n-th occurrence of an entry (same turn, same words) is shown once.
    const seenNow = new Map<string, number>();
    for (const t of view.messages) {
      const key = JSON.stringify(t);
      const occurrence = (seenNow.get(key) ?? 0) + 1;
      seenNow.set(key, occurrence);
      if (occurrence <= (this.shownEntries.get(key) ?? 0)) continue;
      this.shownEntries.set(key, occurrence);
      if (t.kind === 'control') items.push({ type: 'control', turn: t.turn, code: t.code, message: t.message });
      else items.push({ type: 'note', turn: t.turn, by: t.by, text: t.text, ...(t.trusted !== undefined ? { trusted: t.trusted } : {}) });
    }

    // Shown once it can be decided (its approver directory loaded), as status and the console show it.
    const pending = view.awaiting;
    if (pending && !this.requests.has(pending.requestId)) {
      this.requests.add(pending.requestId);
      items.push({
        type: 'approval_request',
        turn: pending.turn,
        requestId: pending.requestId,
        tool: pending.tool,
        args: pending.args,
        ...(pending.subject ? { subject: pending.subject } : {}),
        roles: pending.roles,
        quorum: pending.quorum,
        ...(pending.precondition?.ok === false ? { precondition: pending.precondition } : {}),
        expiresAt: pending.expiresAt,
        ...(pending.display ? { display: pending.display } : {}),
      });
    }
    for (const a of view.approvals) {
      if (this.shownApprovals.has(a.requestId)) continue;
      this.shownApprovals.add(a.requestId);
      items.push({ ...a, type: 'approval' });
    }
    // Within one poll: by turn, and within a turn in the order things happen (stable sort).
    items.sort((a, b) => a.turn - b.turn || rank[a.type] - rank[b.type]);
    const out: WatchItem[] = skipped ? [{ type: 'skipped', receipts: skipped }, ...items] : items;
    return view.terminal ? [...out, { type: 'terminal', ...view.terminal }] : out;
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
      const n = item.signatures.length;
      const signed = n ? ` (${n} signed statement${n === 1 ? '' : 's'})` : '';
      return `[turn ${item.turn}] approval  ${item.decision} by ${item.by}${signed}${item.comment ? `: ${item.comment}` : ''} (request ${item.requestId}, at ${isoTime(item.at)})`;
    }
    case 'skipped':
      return `(${item.receipts} older receipts were dropped from the run's state before they could be shown; they remain in its Temporal history)`;
    case 'terminal':
      return `terminal: ${item.class} (${item.reason})${item.detail ? ` ${item.detail}` : ''}, at ${isoTime(item.at)}`;
  }
}

/** Who proposed it, padded like the other kinds: `proposal` from runs recorded before shapes. */
function decidedBy(item: Decision): string {
  return `${item.by ? `${item.by} ` : 'proposal'}`.padEnd(10);
}

/** For a model turn in a shaped run: what the route (or plan) left open, i.e. why the model was asked. */
function openOf(item: Decision): string {
  return item.by === 'model' && item.open?.length ? `; asked because: ${item.open.join('; ')}` : '';
}
