/**
 * `bounded-react-temporal/client`: start, follow and decide agent runs from your own services,
 * scripts and tools. `AgentClient` is the one way in: `start` (or attach to the run a case
 * already has, with the same settings), `state` (a {@link RunView}), `watch` (each receipt,
 * note and approval step, then the outcome), `approve`/`deny`/`amend` signed with your key,
 * `note`, `cancel`, `inspect` (what the server knows, with or without a worker), `export` (the
 * audit record) and `list`. Every failure is a typed error whose message is one line an
 * operator can act on. Keys, the approver directory's entries and offline verification of an
 * export are here too; the command line is `bounded-react-temporal/cli`.
 *
 * @example
 * ```ts
 * import { AgentClient, readKeyFile } from 'bounded-react-temporal/client';
 * import { orders } from './domain.js';
 *
 * const agent = await AgentClient.connect({ domains: [orders] }); // TEMPORAL_* from the environment
 * const run = await agent.start({ domain: 'orders', caseId: 'O-1001', model: { adapter: 'rules' } });
 * for await (const item of agent.watch(run.runId)) {
 *   if (item.type === 'approval_request') await agent.approve(run.runId, item.requestId, readKeyFile('you.key'));
 *   if (item.type === 'terminal') console.log(`${item.class} (${item.reason})`);
 * }
 * await agent.close();
 * ```
 *
 * @module
 */

// The client, what it is given and what it answers.
export { AgentClient } from './agent-client.js';
export type {
  AgentClientConnectOptions,
  AgentClientOptions,
  CancelOptions,
  DecisionOptions,
  DecisionResult,
  NoteOptions,
  RunDescription,
  StartedRun,
} from './agent-client-types.js';
export { RunView, type PendingApproval } from './run-view.js';
export type { WatchItem } from './watch-cursor.js';
export type { RunReport } from './run-report.js';
export type { ListFilter, ListRow } from './list-query.js';

// What can go wrong: every AgentClient failure is an AgentClientError (an AgentError), none a CLI error.
export { AgentError } from '../workflows/agent-error.js';
export {
  AgentClientError,
  InvalidRequestError,
  InvalidRunInputError,
  RequestNotPendingError,
  RequestRejectedError,
  RunClosedWithoutTerminalError,
  RunEndedError,
  RunNotFoundError,
  RunSettingsConflictError,
  RunUnavailableError,
  ClientOptionError,
  WorkerTimeoutError,
} from './agent-errors.js';

// Approver keys: make one, keep it, put it in the directory, sign with it.
export { directoryEntry, generateKey, readKeyFile, signDecision, signNote, signStart, writeKeyFile, type KeyFile } from './sign.js';
// What a start or a request is signed for: the namespace and the run's settings (its `bound`).
export { runBinding } from '../workflows/trust/run-binding.js';

// The audit record of a run, and its offline check against a directory.
export { RunExport } from './export-schema.js';
export { verifyExport, type VerifyReport } from './verify.js';
