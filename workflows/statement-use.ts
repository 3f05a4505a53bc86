// How another execution can tell that a signed approval was already spent. Temporal's reset
// starts a new execution from an earlier point of a run's history and re-applies the Updates
// that followed it, and any client can send a used statement again: within its lifetime it
// verifies as well as the first time. What the new execution cannot see is its discarded
// sibling's state, but it can read that sibling's history. So an approved effect is dispatched
// under an activity id that names the statements it rests on, and before the dispatch the
// engine asks the server whether any other execution of the workflow id has dispatched under
// one of them (activities/used-statements.ts). A statement decides one request once. A start
// statement, and the signed request a run is started with, are spent the same way, as the
// execution starts: its first directory reads are named after them; so is a signed note sent
// later, by the directory read that takes it (workflows/handlers.ts).
// Workflow-safe: shared by the workflow, which names its dispatches, and the activity that reads them.
import { digestOf } from './trust/statement.js';

/** Every activity that spends a statement has an id that starts with this. */
export const STATEMENT_USE_PREFIX = 'statement-use:';

/** A short, stable name for one signature: enough to tell statements apart, never the statement itself. */
export function statementFingerprint(signature: string): string {
  return digestOf(signature).slice(0, 24);
}

/** The activity id of an approved effect's dispatch: the call, when it was sent, and the statements it rests on. */
export function approvedDispatchId(call: { callId: string; sentAt?: number | undefined; approvedWith: readonly string[] }): string {
  return `${STATEMENT_USE_PREFIX}effect-${call.callId}-${call.sentAt ?? 0}:${call.approvedWith.join('.')}`;
}

/**
 * The activity id of the approver-directory read that verifies a run's start statement as the run
 * starts: the statement is spent by the execution that read it, whether or not it ever raises a
 * request, so the same statement replayed into a later execution under the workflow id (a new
 * chain) names nobody as its starter.
 */
export function startUseId(fingerprint: string): string {
  return `${STATEMENT_USE_PREFIX}start:${fingerprint}`;
}

/**
 * The activity id of the approver-directory read that takes a run's signed request (RunInput.request):
 * the execution that read it spent it, so a later execution under the workflow id (a reset, a
 * delete and start again, anyone who resends the start) takes it as unsigned text.
 */
export function requestUseId(fingerprint: string): string {
  return `${STATEMENT_USE_PREFIX}request:${fingerprint}`;
}

/**
 * The activity id of the approver-directory read that takes a signed note sent later (the addNote
 * Update): the execution that read it spent it, so the same note sent to a later execution under
 * the workflow id (one started again, a reset) is unsigned text there.
 */
export function noteUseId(fingerprint: string): string {
  return `${STATEMENT_USE_PREFIX}note:${fingerprint}`;
}

/** The fingerprints an activity id names, if it spends statements. */
export function fingerprintsOf(activityId: string): string[] {
  if (!activityId.startsWith(STATEMENT_USE_PREFIX)) return [];
  const named = activityId.slice(activityId.lastIndexOf(':') + 1);
  return named.split('.').filter(Boolean);
}
