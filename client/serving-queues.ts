// Which task queues have workers, asked of the server before a start or a clear. A run started
// on a queue no worker polls waits forever: nothing answers its query, a cancel never reaches
// it, and the case id stays taken. So `start` asks first whether its queue is polled, and when
// it is not, says where the domain's runs are served: the queues of the domain's recent runs
// (visibility, by the AgentDomain search attribute every start sets) and the queue a worker of
// that domain alone would choose, each kept only if a worker polls it now.
import type { Client } from '@temporalio/client';
import { taskQueueFor } from '../worker/connection.js';
import { domainKey } from '../workflows/search-attributes.js';
import { pollersOf } from './server-facts.js';
import type { PollerFacts } from './run-report.js';

/** How many of the domain's most recent runs are looked at for their queues. */
const RECENT_RUNS = 50;
const SERVER_CALL_MS = 5_000;

/** A queue is served when the server could be asked and a worker polled it recently. */
export function isServed(pollers: PollerFacts): boolean {
  return pollers.checked && pollers.recent > 0;
}

/** Whether `taskQueue` is polled now; `unknown` when the server could not say (the caller does not refuse on a guess). */
export async function queueServed(client: Client, taskQueue: string): Promise<'served' | 'unserved' | 'unknown'> {
  const pollers = await pollersOf(client, taskQueue);
  if (!pollers.checked) return 'unknown';
  return pollers.recent > 0 ? 'served' : 'unserved';
}

/**
 * The task queues, other than `except`, that a worker polls now and that serve `domain`: the
 * queues of its recent runs and `agents-<domain>`. Best effort: a server whose visibility cannot
 * be searched by AgentDomain still has the default queue checked.
 */
export async function servingQueues(client: Client, domain: string, except?: string): Promise<string[]> {
  const candidates = new Set<string>([taskQueueFor([domain], {})]);
  try {
    const query = `${domainKey.name} = ${JSON.stringify(domain)}`;
    await client.connection.withDeadline(Date.now() + SERVER_CALL_MS, async () => {
      let seen = 0;
      for await (const run of client.workflow.list({ query, pageSize: RECENT_RUNS })) {
        candidates.add(run.taskQueue);
        if (++seen >= RECENT_RUNS) break;
      }
    });
  } catch {
    // Visibility may lack the attribute (a server nobody registered it on): the default still counts.
  }
  if (except !== undefined) candidates.delete(except);
  const checked = await Promise.all([...candidates].map(async (q) => ({ q, served: isServed(await pollersOf(client, q)) })));
  return checked
    .filter((c) => c.served)
    .map((c) => c.q)
    .sort();
}

/** The words for "start here instead": which queues serve the domain and how to pick one. */
export function servingWords(domain: string, queues: readonly string[], program: string): string {
  if (queues.length === 0)
    return `no task queue with a worker serving ${domain} was found (none of its recent runs' queues, nor agents-${domain}, is polled): start your worker first, then start the run on its queue with AGENT_TASK_QUEUE=<queue> or --task-queue <queue>`;
  const first = queues[0] ?? '';
  return `task queue${queues.length > 1 ? 's' : ''} with a worker serving ${domain}: ${queues.join(', ')}; start on ${queues.length > 1 ? 'one' : 'it'} with AGENT_TASK_QUEUE=${first} ${program} start ... or --task-queue ${first}`;
}
