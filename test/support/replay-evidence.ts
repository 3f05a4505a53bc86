// Why this exists: a query on a run that has ended makes a worker replay the run's whole history.
// Once (2026-12-06, alert-loop.test.ts beside another suite) that replay failed: "Activity machine
// does not handle this event: HistoryEvent(id: 112, WorkflowExecutionUpdateAccepted)", an
// Alertmanager note accepted while the run soaked. It was not reproduced since, with thousands of
// notes sent at random and at a timer's firing, under load and with one-page histories. The
// history was gone with the test's server, so now the failure says what the history held around
// the event it names and keeps the whole history in a file: the next one can be read from the log.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';

/** The event types, attributes' names and ids around `eventId`, one per line. */
function around(events: { eventId?: unknown; eventType?: unknown }[], eventId: number, width = 10): string {
  return events
    .filter((e) => Math.abs(Number(e.eventId) - eventId) <= width)
    .map((e) => {
      const attributes = Object.keys(e).find((k) => k.endsWith('Attributes')) ?? String(e.eventType);
      return `  ${String(e.eventId)} ${attributes}`;
    })
    .join('\n');
}

/** Queries a run that has ended; a nondeterminism error comes back with the history around the event it names, and the history in a file. */
export async function queryEnded<R>(handle: WorkflowHandle, query: () => Promise<R>): Promise<R> {
  try {
    return await query();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const named = /Nondeterminism error: .*HistoryEvent\(id: (\d+)/.exec(message);
    if (!named) throw err;
    const history = await handle.fetchHistory();
    const file = join(tmpdir(), `nondeterminism-${handle.workflowId}-${Date.now()}.json`);
    writeFileSync(file, historyToJSON(history));
    throw new Error(`${message}\nthe history around event ${named[1]} (all of it in ${file}):\n${around(history.events ?? [], Number(named[1]))}`, {
      cause: err,
    });
  }
}
