// Reads the approval inbox so that one run nobody answers for never slows it for the others.
// Each waiting run is looked at on its own and all at once: a run whose task queue no worker
// polls is not queried at all (the server says so, once per queue), a query is bounded, and
// answers are kept for a moment so every open inbox page shares them. A run that did not answer
// is shown as such from then on while it is asked again in the background, so the inbox waits
// for it once, not on every load. A decision forgets the run's answer, so the next read shows it.
import type { AgentClient } from '../client/agent-client.js';
import { RunEndedError, RunNotFoundError } from '../client/agent-errors.js';
import type { ListRow } from '../client/list-query.js';
import { noPollerWords } from '../client/run-report.js';
import type { RunView } from '../client/run-view.js';
import type { InboxEntry } from './views.js';

/** The inbox asks about at most this many waiting runs. */
const INBOX_LIMIT = 100;

export interface InboxReaderOptions {
  /** How long one run's state query may take. */
  stateTimeoutMs: number;
  /** How long an answer serves every page (default 1 s). */
  viewTtlMs?: number;
  /** How long a run that did not answer is shown as such before it is asked again (default 10 s). */
  unansweredTtlMs?: number;
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

  constructor(
    private readonly agent: AgentClient,
    private readonly options: InboxReaderOptions,
  ) {
    this.viewTtlMs = options.viewTtlMs ?? 1_000;
    this.unansweredTtlMs = options.unansweredTtlMs ?? 10_000;
  }

  /** Every run the visibility store shows waiting for approval, with its state or why there is none. */
  async read(): Promise<InboxEntry[]> {
    const rows = await this.agent.list({ phase: 'awaiting_approval', limit: INBOX_LIMIT });
    const listed = new Set(rows.map((r) => r.runId));
    for (const runId of this.asked.keys()) if (!listed.has(runId)) this.asked.delete(runId);
    return Promise.all(rows.map((row) => this.entry(row)));
  }

  /** Forgets what the run answered (after a decision on it), so the next read asks again. */
  forget(runId: string): void {
    this.asked.delete(runId);
  }

  private async entry(row: ListRow): Promise<InboxEntry> {
    const pollers = await this.agent.pollers(row.taskQueue);
    if (pollers.checked && pollers.recent === 0) {
      this.asked.delete(row.runId);
      return {
        row,
        notice: `waits for approval, but ${noPollerWords(row.taskQueue, pollers.lastPollAt)}: nobody can decide it until a worker serves that queue`,
      };
    }
    const outcome = await this.ask(row);
    if (outcome.ok) return { row, view: outcome.view };
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
      return { ok: true, view: await this.agent.state(row.runId, { timeoutMs: this.options.stateTimeoutMs }) };
    } catch (err) {
      if (err instanceof RunNotFoundError || err instanceof RunEndedError) return { ok: false, error: message(err), gone: true };
      // Why nobody answered, in the server's words when it has any (a failing workflow task, a closed run).
      const report = await this.agent.inspect(row.runId, { askWorker: false }).catch(() => undefined);
      const words = report?.notices.filter((n) => !n.startsWith('showing what the server knows')) ?? [];
      return { ok: false, error: words.length ? words.join('; ') : message(err) };
    }
  }
}
