// Whether a worker polls a run's task queue, asked of the server once per queue and not once per
// run: a list of a hundred runs on two queues, or a console that redraws every second, would
// otherwise ask the same question over and over. The list's notices are here too, since they
// are what that one answer per queue is for: what the server says about each listed run that
// its row alone does not.
import type { Client } from '@temporalio/client';
import type { ListRow } from './list-query.js';
import { closedAsOf, noPollerWords, statusWords, type PollerFacts } from './run-report.js';
import { pollersOf } from './server-facts.js';

/** One answer per task queue about its pollers serves every run on it for this long. */
const POLLERS_CACHE_MS = 2_000;

/** The server's answer about each task queue's pollers, kept for a moment. */
export class QueuePollers {
  private readonly answers = new Map<string, { at: number; answer: Promise<PollerFacts> }>();

  constructor(private readonly client: Client) {}

  /** Whether any worker polls `taskQueue` now, per the server (one answer per queue for a moment). */
  async of(taskQueue: string): Promise<PollerFacts> {
    const now = Date.now();
    const cached = this.answers.get(taskQueue);
    if (cached && now - cached.at < POLLERS_CACHE_MS) return cached.answer;
    const answer = pollersOf(this.client, taskQueue);
    this.answers.set(taskQueue, { at: now, answer });
    if (this.answers.size > 1_000) for (const [queue, entry] of this.answers) if (now - entry.at >= POLLERS_CACHE_MS) this.answers.delete(queue);
    return answer;
  }
}

/** AgentClient.rowNotices: each listed run's notice, keyed by its row, with one `pollers` question per running task queue. */
export async function rowNotices(rows: readonly ListRow[], pollers: (taskQueue: string) => Promise<PollerFacts>): Promise<Map<ListRow, string>> {
  const notices = new Map<ListRow, string>();
  const queues = [...new Set(rows.filter((r) => r.status === 'RUNNING').map((r) => r.taskQueue))];
  const polled = new Map(await Promise.all(queues.map(async (q) => [q, await pollers(q)] as const)));
  for (const row of rows) {
    const closed = closedAsOf(row.status);
    const p = polled.get(row.taskQueue);
    if (!closed && p?.checked && p.recent === 0) notices.set(row, noPollerWords(row.taskQueue, p.lastPollAt));
    else if (closed === 'continued_as_new') notices.set(row, 'continued as new: a later execution carries the run on');
    else if (closed && (closed !== 'completed' || row.phase !== 'terminal'))
      notices.set(row, `${statusWords(row.status)}${row.phase === 'terminal' ? '' : ' before the run recorded an outcome'}`);
  }
  return notices;
}
