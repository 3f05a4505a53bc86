// Reads the approval inbox so that one run nobody answers for never slows it for the others.
// Each waiting run is looked at on its own and all at once: a run whose task queue no worker
// polls is not queried at all (the server says so, once per queue), a query is bounded, and
// answers are kept for a moment so every open inbox page shares them. A run that did not answer
// is shown as such from then on while it is asked again in the background, so the inbox waits
// for it once, not on every load. A decision forgets the run's answer, so the next read shows it.
// A card is built only for one of this engine's runs, answering as itself: the list asks the
// server for runs on the engine's own task queue (a look-alike started by anyone, on a queue of
// their own with a worker of their own, is listed apart with a notice and never asked), the
// exact execution listed is asked (workflow id and run id), and its answer must name that run and
// chain and report the digest of the request it shows; otherwise the run is a problem line.
import type { AgentClient } from '../client/agent-client.js';
import { RunEndedError, RunNotFoundError } from '../client/agent-errors.js';
import { notServedWords, type ListRow } from '../client/list-query.js';
import { noPollerWords } from '../client/run-report.js';
import type { RunView } from '../client/run-view.js';
import { shownDigest } from '../client/sign.js';
import type { Domain } from '../workflows/contract.js';
import type { Inbox, InboxEntry } from './inbox-page.js';

/** The inbox asks about at most this many waiting runs (one more is listed, to know whether others wait). */
export const INBOX_LIMIT = 100;
/** Runs on other task queues listed as waiting are named, at most this many; none is asked. */
const OTHERS_LIMIT = 20;

export interface InboxReaderOptions {
  /** How long one run's state query may take. */
  stateTimeoutMs: number;
  /** How long an answer serves every page (default 1 s). */
  viewTtlMs?: number;
  /** How long a run that did not answer is shown as such before it is asked again (default 10 s). */
  unansweredTtlMs?: number;
  /** How many waiting runs are shown (default INBOX_LIMIT). */
  limit?: number;
}

/** `gone`: the run ended or vanished since the list was read; it is not waiting for anyone. */
type Outcome = { ok: true; view: RunView } | { ok: false; error: string; gone?: true };

interface Asked {
  at: number;
  answer: Promise<Outcome>;
  settled?: Outcome;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err)).replace(/\s*[\r\n]+\s*/g, ' ').slice(0, 1_000);

export class InboxReader {
  private readonly asked = new Map<string, Asked>();
  private readonly viewTtlMs: number;
  private readonly unansweredTtlMs: number;
  private readonly limit: number;

  constructor(
    private readonly agent: AgentClient,
    private readonly options: InboxReaderOptions,
  ) {
    this.viewTtlMs = options.viewTtlMs ?? 1_000;
    this.unansweredTtlMs = options.unansweredTtlMs ?? 10_000;
    this.limit = options.limit ?? INBOX_LIMIT;
  }

  /**
   * Every run of this engine the visibility store shows waiting for approval, with its state or
   * why there is none; then the runs on other task queues listed as waiting, each with a notice.
   */
  async read(): Promise<InboxEntry[]> {
    return (await this.readInbox()).entries;
  }

  /**
   * The same, and whether more runs wait than are shown: one more than the limit is listed, so a
   * request past it is said to be there instead of silently missing from the page.
   */
  async readInbox(): Promise<Inbox> {
    const [listedRows, others] = await Promise.all([
      this.agent.list({ phase: 'awaiting_approval', served: true, limit: this.limit + 1 }),
      this.agent.list({ phase: 'awaiting_approval', served: false, limit: OTHERS_LIMIT }),
    ]);
    const rows = listedRows.slice(0, this.limit);
    const listed = new Set(rows.map((r) => r.runId));
    for (const runId of this.asked.keys()) if (!listed.has(runId)) this.asked.delete(runId);
    const entries = await Promise.all([...rows.map((row) => this.entry(row)), ...others.map((row) => this.other(row))]);
    return { entries, more: listedRows.length > this.limit, limit: this.limit };
  }

  /** Forgets what the run answered (after a decision on it), so the next read asks again. */
  forget(runId: string): void {
    this.asked.delete(runId);
  }

  /** A run on a queue this engine does not serve: never asked, never a card. */
  private async other(row: ListRow): Promise<InboxEntry> {
    const pollers = await this.agent.pollers(row.taskQueue);
    const notServed = notServedWords(row.taskQueue, this.agent.servedQueues);
    return {
      row,
      notice:
        pollers.checked && pollers.recent === 0
          ? `waits for approval, but ${noPollerWords(row.taskQueue, pollers.lastPollAt)}: nobody can decide it until a worker serves that queue (${notServed})`
          : `is listed as waiting for approval, but ${notServed}: no card is shown for it and nothing it answers is`,
    };
  }

  private async entry(row: ListRow): Promise<InboxEntry> {
    if (!this.agent.serves(row.taskQueue)) return this.other(row);
    const pollers = await this.agent.pollers(row.taskQueue);
    if (pollers.checked && pollers.recent === 0) {
      this.asked.delete(row.runId);
      return {
        row,
        notice: `waits for approval, but ${noPollerWords(row.taskQueue, pollers.lastPollAt)}: nobody can decide it until a worker serves that queue`,
      };
    }
    const outcome = await this.ask(row);
    if (outcome.ok) {
      const reread = outcome.view.awaiting ? rereadOf(this.agent.domains, outcome.view.domain, outcome.view.awaiting.tool) : undefined;
      return { row, view: outcome.view, ...(reread ? { reread } : {}) };
    }
    return outcome.gone ? { row } : { row, error: outcome.error };
  }

  private ask(row: ListRow): Promise<Outcome> | Outcome {
    const now = Date.now();
    const last = this.asked.get(row.runId);
    const ttl = last?.settled?.ok === false ? this.unansweredTtlMs : this.viewTtlMs;
    // Fresh, or still being asked: shared, not asked twice.
    if (last && (now - last.at < ttl || !last.settled)) return last.answer;
    const asked: Asked = { at: now, answer: this.query(row) };
    void asked.answer.then((o) => (asked.settled = o));
    this.asked.set(row.runId, asked);
    // It did not answer last time: show that at once and let the new question run behind it.
    if (last?.settled?.ok === false) return last.settled;
    return asked.answer;
  }

  private async query(row: ListRow): Promise<Outcome> {
    try {
      // The execution listed, not whichever is latest under its workflow id by the time it is asked.
      const view = await this.agent.state(row.runId, {
        timeoutMs: this.options.stateTimeoutMs,
        ...(row.executionRunId ? { executionRunId: row.executionRunId } : {}),
      });
      const problem = identityProblem(row, view);
      return problem ? { ok: false, error: problem } : { ok: true, view };
    } catch (err) {
      if (err instanceof RunNotFoundError || err instanceof RunEndedError) return { ok: false, error: message(err), gone: true };
      // Why nobody answered, in the server's words when it has any (a failing workflow task, a closed run).
      const report = await this.agent.inspect(row.runId, { askWorker: false }).catch(() => undefined);
      const words = report?.notices.filter((n) => !n.startsWith('showing what the server knows')) ?? [];
      return { ok: false, error: words.length ? words.join('; ') : message(err) };
    }
  }
}

/**
 * Why the answer cannot be shown as the listed run's card, or undefined: it names another run or
 * chain than the execution listed, or reports a digest that is not the digest of the request it
 * shows (the card would show other values than the signature binds).
 */
export function identityProblem(row: ListRow, view: RunView): string | undefined {
  if (view.runId !== row.runId) return `run ${row.runId} answers as run ${view.runId}: no card is shown for it`;
  if (row.firstRunId && view.chain !== row.firstRunId)
    return `run ${row.runId} answers with chain ${view.chain}, but the server says its chain began with ${row.firstRunId}: no card is shown for it`;
  const a = view.awaiting;
  if (!a) return undefined;
  const checked = shownDigest({
    runId: view.runId,
    requestId: a.requestId,
    tool: a.tool,
    args: a.args,
    subject: a.subject,
    chain: view.chain,
    display: a.display,
    digest: a.digest,
  });
  return checked.ok ? undefined : checked.error;
}

/** The read the tool's contract repeats before the call runs (its precondition's reread), when this console knows the domain. */
export function rereadOf(domains: readonly Domain[] | undefined, domain: string, tool: string): string | undefined {
  return domains?.find((d) => d.name === domain)?.tools.find((t) => t.name === tool)?.precondition?.reread?.tool;
}
