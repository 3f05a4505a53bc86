// The approver directory as the workflow reads it, and whether a signed statement was spent by
// another execution of the run (workflows/statement-use.ts says why that matters and how the
// server can tell). Every answer is an activity's, sealed by a worker (workflows/sealed.ts): a
// directory nobody sealed is not read, and a spend check nobody sealed, or that the server
// cannot answer, counts as spent.
import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.js';
import { continuationOptions, probeOptions } from './policy.js';
import { sealedRead } from './sealed.js';
import { noteUseId, requestUseId, startUseId, statementFingerprint } from './statement-use.js';
import { ApproverDirectory, type Approver } from './trust/directory.js';

const probes = proxyActivities<AgentActivities>(probeOptions);
/** Questions to the Temporal server about other executions: retried as long as a continuation check. */
const serverQuestions = proxyActivities<AgentActivities>(continuationOptions);

/**
 * The worker's directory, for the Update handlers, and the nonce of the read: a decision judged on
 * it is taken only once its seal holds (sealed.ts readBehind). A directory with no seal at all
 * reads as none (no value).
 */
export function directoryNow(): Promise<{ value?: unknown; read: string }> {
  return sealedRead<unknown>('the approver directory', (nonce) => probes.loadApprovers({ nonce })).then((opened) => ({
    ...(opened.sealed ? { value: opened.value } : {}),
    read: opened.nonce,
  }));
}

/** Each kind of statement a run takes: the activity id that spends it, and what it is called in the history. */
const TAKEN = {
  start: { useId: startUseId, summary: 'approvers for the start statement' },
  request: { useId: requestUseId, summary: 'approvers for the signed request' },
  note: { useId: noteUseId, summary: 'approvers for a signed note' },
} as const;

/**
 * A signed statement the run takes: one it is started with, as it starts, whether or not it ever
 * raises a request (the start statement, who started it; the signed request, what was asked), or
 * a signed note sent later (workflows/handlers.ts). The directory to verify it is read under an
 * activity id that spends it (workflows/statement-use.ts), and the answer says whether another
 * execution of the workflow id spent it first (then, or when the server cannot say, it vouches
 * for nothing). A directory that could not be read verifies nothing.
 */
export async function takeStatement(what: keyof typeof TAKEN, signature: string): Promise<{ directory: Approver[]; spentBy?: string }> {
  const fingerprint = statementFingerprint(signature);
  const { approvers, spentBy } = await directorySpending(TAKEN[what].summary, { fingerprint, activityId: TAKEN[what].useId(fingerprint) });
  return { directory: approvers ?? [], ...(spentBy ? { spentBy } : {}) };
}

/**
 * The worker's approver directory (undefined when it could not be read; what comes back is
 * checked like any input), read under `use`'s activity id when the read spends a statement
 * (workflows/statement-use.ts), and the other execution that spent that statement first. A check
 * the server cannot answer counts as spent: the statement vouches for nothing.
 */
export async function directorySpending(
  summary: string,
  use?: { fingerprint: string; activityId: string },
): Promise<{ approvers?: Approver[]; spentBy?: string }> {
  // A directory no worker sealed is one anyone could have written: it is not read at all.
  const directory = sealedRead<unknown>('the approver directory', (nonce) =>
    probes.loadApprovers.executeWithOptions({ summary, ...(use ? { activityId: use.activityId } : {}) }, [{ nonce }]),
  ).then(
    (opened) => {
      if (!opened.sealed) return undefined;
      const parsed = ApproverDirectory.safeParse(opened.value);
      return parsed.success ? parsed.data.approvers : [];
    },
    () => undefined,
  );
  const elsewhere = use ? spentBy([use.fingerprint]).catch(() => 'unknown (the server could not be asked)') : Promise.resolve(undefined);
  const [approvers, spent] = await Promise.all([directory, elsewhere]);
  return { ...(approvers ? { approvers } : {}), ...(spent ? { spentBy: spent } : {}) };
}

/** The run id of another execution under this workflow id that spent one of these statements, if any. */
export async function spentBy(fingerprints: string[]): Promise<string | undefined> {
  const opened = await sealedRead<Array<{ runId?: unknown }>>('the statement-spend check', (nonce) =>
    serverQuestions.statementsUsedElsewhere.executeWithOptions({ summary: 'statements spent elsewhere?' }, [{ fingerprints, nonce }]),
  );
  if (!opened.sealed) throw new Error(`the answer is not a worker's (${opened.reason})`);
  const uses = Array.isArray(opened.value) ? opened.value : [];
  return uses.length ? String(uses[0]?.runId ?? 'unknown') : undefined;
}
