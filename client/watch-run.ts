// Following a run until it ends, for AgentClient.watch. Asking the worker alone would never end
// for a run that closed without a terminal record (its state still reads as it was), nor for one
// no worker answers, so the server is asked first, every few polls, and whenever the worker does
// not answer; and a worker that has just started gets a moment to poll before the run counts as
// unserved. The loop asks only what it is given (inspect, queryState), nothing else of the client.
// An approval request is yielded with the digest of the call shown, from the same answer, so
// whoever decides on it can pin the decision to that call (pending-request.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunView as StateAnswer } from '../workflows/messages.js';
import { closedError, readable } from './agent-client-failures.js';
import { RunNotFoundError } from './agent-errors.js';
import type { RunReport } from './run-report.js';
import { toRunView } from './to-run-view.js';
import { WatchCursor, type WatchItem } from './watch-cursor.js';

/** How often watch asks the run for its state. */
export const WATCH_POLL_MS = 300;
/** How long watch waits for a worker to poll a run's queue before it says none does. */
const WATCH_NO_WORKER_GRACE_MS = 5_000;
/** Every this many polls, watch asks the server whether the run closed without a terminal record. */
const CLOSED_CHECK_EVERY = 10;

/** What watch yields: a WatchItem, an approval request with the digest of the call it shows. */
export type WatchedItem =
  | Exclude<WatchItem, { type: 'approval_request' }>
  | (Extract<WatchItem, { type: 'approval_request' }> & {
      /** The digest of the call shown (the run's own): a decision given it signs only this call. */
      digest: string;
    });

/** The two reads watch makes of a run: the one look (server and worker), and the worker's answer alone. */
export interface RunReads {
  inspect(runId: string): Promise<RunReport>;
  queryState(runId: string): Promise<StateAnswer>;
}

/** AgentClient.watch's loop: each new item of the run, in order, ending with its terminal item or a typed error. */
export async function* watchRun(reads: RunReads, runId: string, options: { pollMs?: number } = {}): AsyncGenerator<WatchedItem, void, undefined> {
  const cursor = new WatchCursor();
  const pollMs = options.pollMs ?? WATCH_POLL_MS;
  let unservedSince: number | undefined;
  for (let poll = 0; ; poll++) {
    let report: RunReport | undefined;
    let view: StateAnswer | undefined;
    if (poll % CLOSED_CHECK_EVERY === 0 || unservedSince !== undefined) report = await reads.inspect(runId);
    else {
      try {
        view = await reads.queryState(runId);
      } catch (err) {
        if (err instanceof RunNotFoundError) throw err;
        report = await reads.inspect(runId);
      }
    }
    if (report && !report.view && !report.closed && report.unanswered?.kind === 'no_poller') {
      // A worker that has just started may not have polled yet: it gets a few seconds to show up.
      unservedSince ??= Date.now();
      if (Date.now() - unservedSince < WATCH_NO_WORKER_GRACE_MS) {
        await sleep(pollMs);
        continue;
      }
    } else unservedSince = undefined;
    view ??= readable(report as RunReport);
    const run = toRunView(view);
    const pending = run.awaiting;
    for (const item of cursor.take(run)) {
      // The cursor shows a request only as the view's pending one: its digest is in the same view.
      if (item.type !== 'approval_request') yield item;
      else if (pending?.requestId === item.requestId) yield { ...item, digest: pending.digest };
      else throw new Error(`bug: watch showed request ${item.requestId}, which is not the pending one of the view it came from`);
    }
    if (run.terminal) return;
    if (report?.closed) throw closedError(report);
    await sleep(pollMs);
  }
}
