// What the parked section asks of a worker holding thousands of runs waiting for a person:
// decisions on runs parked early (long since pushed out of the sticky cache, so the worker
// must replay them first) and late (still cached), and the reads an approver's screen makes
// (AgentClient.list, a visibility count, the console's inbox). Each figure says how many
// workflow tasks missed the cache (replays) while it was taken, read from Core's own counters.
import type { Client } from '@temporalio/client';
import { AgentClient } from '../client/agent-client.js';
import { signDecision } from '../client/sign.js';
import { InboxReader } from '../console/inbox.js';
import { keys } from '../test/support/keys.js';
import { approveUpdate, type RunResult, type RunView } from '../workflows/messages.js';
import { round } from './harness.js';
import type { ParkedWorker } from './parked-process.js';

export type Pending = NonNullable<RunView['awaiting']>;

export interface SampledRun {
  workflowId: string;
  /** Its position in the order the runs were started (0: the first). */
  index: number;
  /** The request it showed when it parked (queried then, while it was cached). */
  pending: Pending;
}

/** `update`: the signed approve Update alone. `client`: AgentClient.approve, which reads the run's state first. */
export type DecisionWay = 'update' | 'client';

export interface DecisionFigures {
  way: DecisionWay;
  parked: 'early' | 'late';
  runs: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Workflow tasks that missed the cache while these decisions were taken (replays), in all. */
  cacheMisses: number;
  approved: number;
  /** Decided runs whose gated effect was then applied, once. */
  applied: number;
}

export interface ReadFigures {
  what: string;
  rows: number;
  ms: number;
  cacheMisses: number;
  /** Inbox entries the worker answered for, and entries shown without the run's state. */
  answered?: number;
  unanswered?: number;
}

/** The nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/**
 * One decision at a time, so the cache counters between two scrapes belong to it; early and
 * late alternate, so a slow spell on the machine does not fall on one group only.
 */
export async function timeDecisions(
  client: Client,
  worker: ParkedWorker,
  groups: { way: DecisionWay; early: SampledRun[]; late: SampledRun[] }[],
  taskQueue: string,
): Promise<DecisionFigures[]> {
  // The parked runs' own queue: a client decides and reads cards only for runs its engine serves.
  const agent = new AgentClient({ client, taskQueue });
  const out: DecisionFigures[] = [];
  for (const { way, early, late } of groups) {
    const taken = {
      early: [] as { ms: number; misses: number; approved: boolean; workflowId: string }[],
      late: [] as { ms: number; misses: number; approved: boolean; workflowId: string }[],
    };
    for (let k = 0; k < Math.max(early.length, late.length); k++) {
      for (const [parked, run] of [
        ['early', early[k]],
        ['late', late[k]],
      ] as const) {
        if (!run) continue;
        const before = await worker.cache();
        const began = performance.now();
        const decision =
          way === 'update'
            ? await client.workflow
                .getHandle(run.workflowId)
                .executeUpdate(approveUpdate, { args: [signDecision(keys.sam, run.workflowId, run.pending, 'approve', 'bench')] })
            : await agent.approve(run.workflowId, run.pending.requestId, keys.sam, { comment: 'bench' });
        const ms = performance.now() - began;
        const after = await worker.cache();
        taken[parked].push({ ms, misses: after.misses - before.misses, approved: decision.decision === 'approved', workflowId: run.workflowId });
      }
    }
    for (const parked of ['early', 'late'] as const) {
      const list = taken[parked];
      if (list.length === 0) continue;
      const ms = list.map((d) => d.ms);
      const applied = await Promise.all(list.map((d) => appliedOnce(client, d.workflowId)));
      out.push({
        way,
        parked,
        runs: list.length,
        p50Ms: round(percentile(ms, 50), 1),
        p95Ms: round(percentile(ms, 95), 1),
        maxMs: round(Math.max(...ms), 1),
        cacheMisses: list.reduce((n, d) => n + d.misses, 0),
        approved: list.filter((d) => d.approved).length,
        applied: applied.filter(Boolean).length,
      });
    }
  }
  return out;
}

/** Whether the approved run went on to apply its gated effect exactly once (it then escalates, as scripted). */
async function appliedOnce(client: Client, workflowId: string): Promise<boolean> {
  const result = (await client.workflow.getHandle(workflowId).result()) as RunResult;
  const gated = result.effects.filter((e) => e.tool === 'gated_touch');
  return gated.length === 1 && gated[0]?.status === 'applied' && gated[0]?.attempts === 1;
}

/** The reads an approver's screen makes, each timed with the replays it caused. */
export async function timeReads(client: Client, worker: ParkedWorker, countQuery: string, taskQueue: string): Promise<ReadFigures[]> {
  const agent = new AgentClient({ client, taskQueue });
  const inbox = new InboxReader(agent, { stateTimeoutMs: 15_000 });
  const out: ReadFigures[] = [];
  const measure = async <T>(what: string, read: () => Promise<T>, rows: (r: T) => number, extra: (r: T) => Partial<ReadFigures> = () => ({})) => {
    const before = await worker.cache();
    const began = performance.now();
    const result = await read();
    const ms = round(performance.now() - began, 1);
    const after = await worker.cache();
    out.push({ what, rows: rows(result), ms, cacheMisses: after.misses - before.misses, ...extra(result) });
  };
  await measure(
    'list, awaiting approval (default limit 50)',
    () => agent.list({ phase: 'awaiting_approval' }),
    (r) => r.length,
  );
  await measure(
    'list, awaiting approval (limit 10,000)',
    () => agent.list({ phase: 'awaiting_approval', limit: 10_000 }),
    (r) => r.length,
  );
  await measure(
    'count, parked on this queue',
    () => client.workflow.count(countQuery),
    (r) => r.count,
  );
  const inboxExtra = (entries: Awaited<ReturnType<InboxReader['read']>>) => ({
    answered: entries.filter((e) => e.view).length,
    unanswered: entries.filter((e) => !e.view).length,
  });
  await measure(
    'console inbox, first read',
    () => inbox.read(),
    (r) => r.length,
    inboxExtra,
  );
  // Past the inbox's one-second answer cache, so every run is asked again (now cached on the worker).
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await measure(
    'console inbox, read again',
    () => inbox.read(),
    (r) => r.length,
    inboxExtra,
  );
  return out;
}
