// The engine's client entry (`bounded-react-temporal/client`): start, watch and decide runs
// from your own services and tools (AgentClient), sign approvals, audit exports, and build a
// command line on it.
export type { SignedDecisionResult } from './agent-client.js';
export {
  AgentClient,
  cancelInput,
  noteInput,
  type AgentClientConnectOptions,
  type AgentClientOptions,
  type CancelOptions,
  type CancelResult,
  type DecisionOptions,
  type DecisionResult,
  type InspectOptions,
  type NoteOptions,
  type NoteResult,
  type NoteUpdateInput,
  type PendingApproval,
  type RunDescription,
} from './agent-client.js';
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
  WorkerTimeoutError,
} from './agent-errors.js';
export { RunReport, abandonedEffects, statusWords, type ClosedFacts, type PollerFacts, type WorkflowTaskFailure } from './run-report.js';
export { CliError, UsageError } from './usage.js';
export { runCli, type CliConfig } from './cli.js';
export { checkRunInput, runIdFor, settingsDiff, startRun, type StartedRun } from './start-run.js';
export { describeItem, WatchCursor, type WatchItem } from './watch-cursor.js';
export { buildListQuery, validateListFilter, type ListFilter, type ListRow } from './list-query.js';
export { directoryEntry, generateKey, KeyFile, readKeyFile, signDecision, signNote, signStart, writeKeyFile } from './sign.js';
export { RunExport, toRunExport, RUN_EXPORT_SCHEMA } from './export-schema.js';
export { verifyExport, type VerifyReport, type StatementCheck } from './verify.js';
export { waitUntil } from './wait.js';
