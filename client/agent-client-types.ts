// What AgentClient is given and what it answers: its options and the results of its requests,
// as plain types a program names (the client entry re-exports them). The class is
// client/agent-client.ts; the run itself, as a client sees it, is RunView (client/run-view.ts).
import type { Client } from '@temporalio/client';
import type { Domain } from '../workflows/contract.js';
import type { ApprovalAck } from '../workflows/messages.js';
import type { ConnectOptions } from './connect.js';
import type { ListRow } from './list-query.js';
import type { KeyFile } from './sign.js';
import type { StartedRun as StartedRunRecord } from './start-run.js';

/** What AgentClient.start returns: the run id, whether it attached to the case's existing run, and its Temporal handle. */
export type StartedRun = StartedRunRecord;

/** What `new AgentClient(...)` takes: your Temporal client and the task queue your agent workers poll. */
export interface AgentClientOptions {
  client: Client;
  /** Where new runs are started: the task queue your agent workers poll. */
  taskQueue: string;
  /**
   * The team's other task queues (a worker per domain, say): runs on any of them are this
   * engine's too, for status, watch, approve, export, the list and the console. The default
   * queue of each of `domains` (`agents-<name>`) counts without being named.
   */
  taskQueues?: readonly string[];
  /** Your domains: with them, start refuses an unknown domain or a bad case id before a run exists. */
  domains?: readonly Domain[];
  /** Default bound for state queries (default 15 s). */
  queryTimeoutMs?: number;
  /** Bound for updates (default 30 s). */
  updateTimeoutMs?: number;
}

export interface InspectOptions {
  /** How long the worker may take to answer the state query (default: the client's query bound). */
  timeoutMs?: number;
  /** One execution of the run (Temporal's run id), e.g. one that continued as new; default the latest. */
  executionRunId?: string;
  /** False: the server's facts only, the state query is never sent (default true). */
  askWorker?: boolean;
}

/** What AgentClient.connect takes: the client options without the connection, plus a data converter or plugins your workers use. */
export interface AgentClientConnectOptions extends Omit<AgentClientOptions, 'client' | 'taskQueue'>, ConnectOptions {
  /** Default: $AGENT_TASK_QUEUE, else what a worker of `domains` polls (`agents-<names, sorted>`; `agent-runs` without domains). */
  taskQueue?: string;
  /** Default: $AGENT_TASK_QUEUES (comma-separated). */
  taskQueues?: readonly string[];
}

/** What approve and deny return: the run's acknowledgement and what was decided on. */
export interface DecisionResult extends ApprovalAck {
  runId: string;
  tool: string;
  args: unknown;
  /** What the call is about, e.g. `transfer:PX-1042`. */
  subject?: string;
  /** The directory id that signed. */
  by: string;
  /** The digest of the exact call the signature binds to. */
  digest: string;
  /** Until when the signed statement could be used. */
  expiresAt: number;
}

/** What sendSignedDecision returns: the run's acknowledgement and what the statement bound. */
export interface SignedDecisionResult extends ApprovalAck {
  runId: string;
  /** The directory id the statement names as its signer. */
  by: string;
  digest: string;
  expiresAt: number;
}

/** Options of approve, deny and amend: a comment recorded with the decision, how long the signed statement is valid, and the call it must be. */
export interface DecisionOptions {
  /** Why; recorded with the decision (at most 500 characters). */
  comment?: string;
  /** How long the signed statement may be used (default 10 minutes). */
  validForMs?: number;
  /**
   * The start of the digest of the call you were shown (16 to 64 hex characters; `awaiting.digest`
   * of the state you read, or an approval_request's `digest` from watch): nothing is signed unless
   * the pending call's digest starts with it (RequestNotPendingError otherwise), so a run reset or
   * started again under the same id with another call pending under the same request id is not
   * decided on. A request id of the form status prints (`<request id>#<prefix>`) pins the same way.
   */
  digest?: string;
}

/** Who a note is from: a key (signed, an operator's word) or an author (unsigned, untrusted text). */
export interface NoteOptions {
  /** Sign the note: trusted operator text if the worker's directory knows the key. */
  key?: KeyFile;
  /** Who writes an unsigned note (the model reads it as untrusted text). */
  by?: string;
}

export interface NoteResult {
  runId: string;
  accepted: true;
  /** True when the run verified the signature against its directory: the model reads it as an operator's word. */
  trusted: boolean;
  signed: boolean;
  by: string;
}

/** Who cancels a run, and why. */
export interface CancelOptions {
  /** Who cancels (recorded with the cancellation). */
  by: string;
  /** Why (recorded in the terminal detail). */
  reason?: string;
}

export interface CancelResult {
  runId: string;
  cancelRequested: true;
  by: string;
  reason: string;
}

/** What the server knows about a run without asking its worker. */
export interface RunDescription extends ListRow {
  /** Temporal's id of the current execution. */
  executionRunId: string;
  taskQueue: string;
  closeTime: string | null;
  historyLength: number;
}
