// A task queue shared by two workers of different workflow code hands each one the other's
// runs, and those runs then fail as "nondeterministic": the symptom says nothing about the
// cause. So an agent worker names the domains it serves in its identity, and before it starts
// it asks the server who else polls its queue: a poller that serves other domains is refused
// here, in words, before any task is taken (or warned about, when the caller says it means it).
import { hostname } from 'node:os';
import type { NativeConnection } from '@temporalio/worker';
import { AgentWorkerError } from '../activities/worker-error.js';

/** The numeric value of TASK_QUEUE_TYPE_WORKFLOW in Temporal's API. */
const TASK_QUEUE_TYPE_WORKFLOW = 1;
/** A poller not heard from for this long has stopped (a live one polls at least once a minute). */
export const POLLER_FRESH_MS = 2 * 60_000;
const TAG = /\[agents: ([^\]]*)\]$/;

function sortedNames(domainNames: readonly string[]): string[] {
  return [...new Set(domainNames)].sort();
}

/** The worker identity: Temporal's default (`pid@host`) and the domains this worker serves. */
export function agentWorkerIdentity(domainNames: readonly string[]): string {
  return `${process.pid}@${hostname()} [agents: ${sortedNames(domainNames).join(',')}]`;
}

/** The domains an agent worker's identity names; undefined for any other worker. */
export function domainsOfIdentity(identity: string): string[] | undefined {
  const match = TAG.exec(identity);
  if (!match) return undefined;
  return (match[1] ?? '').split(',').filter(Boolean);
}

export interface OtherPoller {
  identity: string;
  /** What it serves; undefined when it is not an agent worker (or one from before this check). */
  domains: string[] | undefined;
  lastAccess: string | undefined;
}

export interface QueueNeighbours {
  /** Agent workers on the queue that serve other domains: their runs are not ours to run. */
  conflicting: OtherPoller[];
  /** Workers on the queue whose identity does not say what they serve. */
  unknown: OtherPoller[];
}

/** Who else polled this queue for workflow tasks in the last POLLER_FRESH_MS. */
export async function queueNeighbours(
  connection: NativeConnection,
  namespace: string,
  taskQueue: string,
  domainNames: readonly string[],
): Promise<QueueNeighbours> {
  const response = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
  });
  const ours = sortedNames(domainNames).join(',');
  const now = Date.now();
  const result: QueueNeighbours = { conflicting: [], unknown: [] };
  for (const poller of response.pollers ?? []) {
    const lastAccessMs = poller.lastAccessTime?.seconds != null ? Number(poller.lastAccessTime.seconds) * 1_000 : undefined;
    if (lastAccessMs !== undefined && now - lastAccessMs > POLLER_FRESH_MS) continue;
    const identity = poller.identity ?? '';
    const domains = domainsOfIdentity(identity);
    const entry: OtherPoller = { identity, domains, lastAccess: lastAccessMs !== undefined ? new Date(lastAccessMs).toISOString() : undefined };
    if (domains === undefined) result.unknown.push(entry);
    else if (domains.join(',') !== ours) result.conflicting.push(entry);
  }
  return result;
}

/** Thrown by createAgentWorker (and by Worker.create with agentPlugin) when its task queue is polled by a worker of other domains. */
export class TaskQueueSharedError extends AgentWorkerError {
  static override readonly errorName: string = 'TaskQueueSharedError';
  constructor(
    readonly taskQueue: string,
    readonly domains: readonly string[],
    readonly others: readonly OtherPoller[],
  ) {
    const first = others[0];
    const them = first ? `${first.identity.replace(TAG, '').trim()}, serving ${describeDomains(first.domains)}` : 'another worker';
    super(
      `task queue ${taskQueue} is already polled by a worker of other workflows (${them}${others.length > 1 ? `, and ${others.length - 1} more` : ''}); ` +
        `this worker serves ${describeDomains(sortedNames(domains))}. Sharing it would hand each worker the other's runs, which fail as nondeterministic: ` +
        `give this worker a queue of its own (AGENT_TASK_QUEUE, or leave it unset for agents-<your domains>), or stop the other worker`,
    );
  }
}

/** The one line a worker logs when it shares a queue with workers that do not say what they serve. */
export function unknownNeighboursWarning(taskQueue: string, others: readonly OtherPoller[]): string {
  const ids = others
    .map((o) => o.identity)
    .slice(0, 3)
    .join('; ');
  return `task queue ${taskQueue} is also polled by ${others.length} worker(s) that do not say which workflows they run (${ids}); if they run other workflow code, give this worker a queue of its own (AGENT_TASK_QUEUE)`;
}

function describeDomains(domains: string[] | undefined): string {
  if (!domains) return 'unknown workflows';
  return domains.length ? `domains ${domains.join(', ')}` : 'no domains';
}
