// The typed client for agent runs: what a program (a ticketing integration, a back office, a
// test) calls to start, follow, decide on, annotate, cancel, export and find runs, and what the
// `agent` CLI is built on. It owns the rules every caller must follow: a start attaches only
// with the same settings, reads are bounded so a missing worker is an error and not a hang, a
// decision is signed over the request the run shows, and every failure is a typed error
// (client/agent-errors.ts) whose message is one line an operator can act on.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  isGrpcCancelledError,
  isGrpcDeadlineError,
  isGrpcServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import type { z } from 'zod';
import { TASK_QUEUE } from '../worker/connection.js';
import type { AgentWorkflow } from '../workflows/agent.js';
import type { Domain } from '../workflows/contract.js';
import { addNoteUpdate, approveUpdate, CancelInput, cancelSignal, denyUpdate, NoteInput, stateQuery, type ApprovalAck, type RunView } from '../workflows/messages.js';
import { RunInput } from '../workflows/run-input.js';
import { caseKey, domainKey, phaseKey, stopReasonKey, terminalKey } from '../workflows/search-attributes.js';
import { SignedDecision } from '../workflows/trust/statement.js';
import {
  InvalidRequestError,
  RequestNotPendingError,
  RequestRejectedError,
  RunClosedWithoutTerminalError,
  RunEndedError,
  RunNotFoundError,
  RunSettingsConflictError,
  WorkerTimeoutError,
} from './agent-errors.js';
import { connect } from './connect.js';
import { describeError, formatZodError } from './errors.js';
import { toRunExport, type RunExport } from './export-schema.js';
import { buildListQuery, DEFAULT_LIST_LIMIT, type ListFilter, type ListRow } from './list-query.js';
import { signDecision, signNote, type KeyFile } from './sign.js';
import { startInputOf } from './start-input.js';
import { settingsDiff, startRun, type StartedRun } from './start-run.js';
import { WatchCursor, type WatchItem } from './watch-cursor.js';

/** How long a state query may take before the run counts as unanswered (no worker?). */
export const QUERY_TIMEOUT_MS = 15_000;
/** How long an update (approve, deny, note) may take before the run counts as unanswered. */
export const UPDATE_TIMEOUT_MS = 30_000;
/** How long a decision waits for a just-raised request's approver directory before it is sent anyway. */
export const DIRECTORY_WAIT_MS = 5_000;
/** How often watch asks the run for its state. */
export const WATCH_POLL_MS = 300;
/** Every this many polls, watch asks the server whether the run closed without a terminal record. */
const CLOSED_CHECK_EVERY = 10;
const GRPC_NOT_FOUND = 5;

export interface AgentClientOptions {
  client: Client;
  /** Where new runs are started: the task queue your agent workers poll. */
  taskQueue: string;
  /** Your domains: with them, start refuses an unknown domain or a bad case id before a run exists. */
  domains?: readonly Domain[];
  /** Default bound for state queries (default 15 s). */
  queryTimeoutMs?: number;
  /** Bound for updates (default 30 s). */
  updateTimeoutMs?: number;
}

export interface AgentClientConnectOptions extends Omit<AgentClientOptions, 'client' | 'taskQueue'> {
  /** Default: $AGENT_TASK_QUEUE, else `agent-runs` (what the worker uses). */
  taskQueue?: string;
}

export type PendingApproval = NonNullable<RunView['awaiting']>;

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

export interface DecisionOptions {
  /** Why; recorded with the decision (at most 500 characters). */
  comment?: string;
  /** How long the signed statement may be used (default 10 minutes). */
  validForMs?: number;
}

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

export class AgentClient {
  readonly client: Client;
  readonly taskQueue: string;
  readonly domains: readonly Domain[] | undefined;
  private readonly queryTimeoutMs: number;
  private readonly updateTimeoutMs: number;
  /** Set when connect() made the connection: close() closes it. */
  private closeConnection: (() => Promise<void>) | undefined;

  constructor(options: AgentClientOptions) {
    this.client = options.client;
    this.taskQueue = options.taskQueue;
    this.domains = options.domains;
    this.queryTimeoutMs = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
    this.updateTimeoutMs = options.updateTimeoutMs ?? UPDATE_TIMEOUT_MS;
  }

  /**
   * Connects with the same settings as the worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
   * TEMPORAL_API_KEY, TLS, or a TEMPORAL_PROFILE). Call close() when done.
   */
  static async connect(options: AgentClientConnectOptions = {}): Promise<AgentClient> {
    const connected = await connect();
    const agent = new AgentClient({ ...options, client: connected.client, taskQueue: options.taskQueue ?? TASK_QUEUE });
    agent.closeConnection = connected.close;
    return agent;
  }

  /** Closes the connection if connect() made it; a client you passed in is yours to close. */
  async close(): Promise<void> {
    const close = this.closeConnection;
    this.closeConnection = undefined;
    await close?.();
  }

  /** The run's Temporal handle, for anything this client does not cover. */
  handle(runId: string): WorkflowHandle<AgentWorkflow> {
    return this.client.workflow.getHandle<AgentWorkflow>(runId);
  }

  /**
   * Starts the run for a case, or attaches to the run that exists, which must have been asked
   * for with the same settings (model, budgets, approvers, approval timeout): otherwise
   * RunSettingsConflictError, and the run is not changed. A bad input (InvalidRunInputError) is
   * refused before anything reaches the server.
   */
  async start(input: RunInput): Promise<StartedRun> {
    const started = await startRun(this.client, input, this.taskQueue, this.domains);
    if (!started.attached) return started;
    const existing = await this.startedWith(started.runId, started.executionRunId).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    if (existing instanceof Error) return { ...started, settings: 'unknown', settingsNotCompared: existing.message };
    const differences = settingsDiff(existing, input);
    if (differences.length) throw new RunSettingsConflictError(started.runId, input.domain, input.caseId, differences, started.running);
    return { ...started, settings: 'same' };
  }

  /**
   * The settings a run was started with, from its history (client/start-input.ts): a busy or
   * absent worker cannot turn a settings conflict into "could not compare". A continued run
   * carries its settings into each new execution.
   */
  private async startedWith(runId: string, executionRunId: string): Promise<RunInput> {
    const input = (await startInputOf(this.client, runId, executionRunId)) as { run?: unknown } | undefined;
    const parsed = RunInput.safeParse(input?.run);
    if (!parsed.success) throw new Error(`the run was started with input this client cannot read (${formatZodError(parsed.error)})`);
    return parsed.data;
  }

  /** The run's state as its worker reports it, bounded (WorkerTimeoutError when nobody answers). */
  async state(runId: string, options: { timeoutMs?: number } = {}): Promise<RunView> {
    const timeoutMs = options.timeoutMs ?? this.queryTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    try {
      return await this.client.connection.withDeadline(deadline, () => this.handle(runId).query(stateQuery));
    } catch (err) {
      // At the deadline the call may end as DEADLINE_EXCEEDED or as CANCELLED: both mean no answer in time.
      if (isGrpcDeadlineError(err) || (isGrpcCancelledError(err) && Date.now() >= deadline - 50)) {
        throw new WorkerTimeoutError(runId, 'state query', timeoutMs, `run ${runId} did not answer the state query within ${seconds(timeoutMs)} (is a worker running?)`);
      }
      throw translate(err, runId);
    }
  }

  /**
   * Each new receipt, feedback, note and approval step of the run, once and in order, ending
   * with its terminal item. A run that closes without a terminal record (terminated from
   * outside, failed) ends the iteration with RunClosedWithoutTerminalError.
   */
  async *watch(runId: string, options: { pollMs?: number } = {}): AsyncGenerator<WatchItem, void, undefined> {
    const cursor = new WatchCursor();
    for (let poll = 1; ; poll++) {
      const view = await this.state(runId);
      yield* cursor.take(view);
      if (view.state.terminal) return;
      if (poll % CLOSED_CHECK_EVERY === 0) {
        const { status } = await this.describe(runId);
        if (status !== 'RUNNING') throw new RunClosedWithoutTerminalError(runId, status);
      }
      await sleep(options.pollMs ?? WATCH_POLL_MS);
    }
  }

  /** Approves the pending request `requestId`, signed with `key` over the exact call the run shows. */
  approve(runId: string, requestId: string, key: KeyFile, options: DecisionOptions = {}): Promise<DecisionResult> {
    return this.decide('approve', runId, requestId, key, options);
  }

  /** Denies the pending request `requestId`; the model is told, with the comment. */
  deny(runId: string, requestId: string, key: KeyFile, options: DecisionOptions = {}): Promise<DecisionResult> {
    return this.decide('deny', runId, requestId, key, options);
  }

  /**
   * Sends a decision someone else signed (a browser, an approver's own tool), unchanged, as
   * the approve or deny Update: for callers that must never hold the private key. Only the
   * shape is checked here (InvalidRequestError); the run's validator judges the rest, and its
   * refusal (wrong signer, expired, another digest) is a RequestRejectedError with its reason.
   */
  async sendSignedDecision(runId: string, signed: SignedDecision, kind: 'approve' | 'deny'): Promise<SignedDecisionResult> {
    const parsed = SignedDecision.safeParse(signed);
    if (!parsed.success) throw new InvalidRequestError(`not a signed decision: ${formatZodError(parsed.error)}`);
    const ack = await this.update(runId, kind, () => this.handle(runId).executeUpdate(kind === 'approve' ? approveUpdate : denyUpdate, { args: [signed] }));
    const { by, digest, expiresAt } = parsed.data.statement;
    return { runId, ...ack, by, digest, expiresAt };
  }

  /** Adds a note: signed with `key` it is trusted operator text, unsigned (`by`) it is untrusted text. */
  async note(runId: string, text: string, options: NoteOptions): Promise<NoteResult> {
    const input = noteInput(runId, text, options);
    const ack = await this.update(runId, 'note', () => this.handle(runId).executeUpdate(addNoteUpdate, { args: [input] }));
    const signed = 'statement' in input;
    return { runId, accepted: ack.accepted, trusted: ack.trusted, signed, by: signed ? input.statement.by : input.by };
  }

  /** Stops a running run: a pending approval is closed and nothing further runs. */
  async cancel(runId: string, options: CancelOptions): Promise<CancelResult> {
    const input = cancelInput(options);
    const { status } = await this.describe(runId);
    if (status !== 'RUNNING') throw new RunEndedError(runId, `run ${runId} is not running (${status.toLowerCase()})`);
    await this.handle(runId)
      .signal(cancelSignal, input)
      .catch((err: unknown) => {
        throw translate(err, runId);
      });
    return { runId, cancelRequested: true, by: input.by, reason: input.reason };
  }

  /** The run record in the published schema (RunExport), validated before it is returned. */
  async export(runId: string): Promise<RunExport> {
    return toRunExport(await this.state(runId));
  }

  /** Runs by domain, phase or outcome, from the server's visibility store (eventually consistent). */
  async list(filter: ListFilter = {}): Promise<ListRow[]> {
    const query = buildListQuery(filter);
    const limit = filter.limit ?? DEFAULT_LIST_LIMIT;
    const rows: ListRow[] = [];
    for await (const info of this.client.workflow.list({ query, pageSize: Math.min(limit, 1_000) })) {
      rows.push({ runId: info.workflowId, ...fromSearchAttributes(info.typedSearchAttributes), status: info.status.name, startTime: info.startTime.toISOString() });
      if (rows.length >= limit) break;
    }
    return rows;
  }

  /** What the server knows about the run (status, search attributes) without asking a worker. */
  async describe(runId: string): Promise<RunDescription> {
    const info = await this.handle(runId)
      .describe()
      .catch((err: unknown) => {
        throw translate(err, runId);
      });
    return {
      runId: info.workflowId,
      ...fromSearchAttributes(info.typedSearchAttributes),
      status: info.status.name,
      startTime: info.startTime.toISOString(),
      executionRunId: info.runId,
      taskQueue: info.taskQueue,
      closeTime: info.closeTime?.toISOString() ?? null,
      historyLength: info.historyLength,
    };
  }

  /** The run's Temporal history (for replaying it against new workflow code). */
  async history(runId: string): Promise<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>> {
    return await this.handle(runId)
      .fetchHistory()
      .catch((err: unknown) => {
        throw translate(err, runId);
      });
  }

  private async decide(kind: 'approve' | 'deny', runId: string, requestId: string, key: KeyFile, options: DecisionOptions): Promise<DecisionResult> {
    const awaiting = await this.pendingRequest(runId, requestId, kind);
    const signed = signDecision(key, runId, awaiting, kind, options.comment ?? '', options.validForMs !== undefined ? { validForMs: options.validForMs } : {});
    const ack = await this.update(runId, kind, () => this.handle(runId).executeUpdate(kind === 'approve' ? approveUpdate : denyUpdate, { args: [signed] }));
    return {
      runId,
      ...ack,
      tool: awaiting.tool,
      args: awaiting.args,
      ...(awaiting.subject ? { subject: awaiting.subject } : {}),
      by: key.id,
      digest: awaiting.digest,
      expiresAt: signed.statement.expiresAt,
    };
  }

  /** The request to decide, once it is the pending one and (if just raised) its directory has loaded. */
  private async pendingRequest(runId: string, requestId: string, kind: 'approve' | 'deny'): Promise<PendingApproval> {
    const giveUpAt = Date.now() + DIRECTORY_WAIT_MS;
    for (;;) {
      const view = await this.state(runId);
      const st = view.state;
      if (st.terminal) throw new RunEndedError(runId, `run ${runId} has already ended (${st.terminal.class}/${st.terminal.reason}); nothing to ${kind}`);
      const awaiting = view.awaiting;
      if (!awaiting) throw new RequestNotPendingError(runId, requestId, `run ${runId} has no pending approval (phase ${st.phase})`);
      if (awaiting.requestId !== requestId) {
        throw new RequestNotPendingError(runId, requestId, `request ${requestId} is not pending on run ${runId} (the pending request is ${awaiting.requestId})`);
      }
      if (!awaiting.signed) {
        throw new RequestNotPendingError(runId, requestId, `run ${runId} predates signed approvals; its request ${requestId} cannot be decided with a key (cancel the run instead)`);
      }
      // Until the worker's directory is loaded nobody is eligible and the run would refuse any
      // decision as "still loading": a request raised a moment ago gets a few seconds.
      if (awaiting.eligible.length > 0 || Date.now() >= giveUpAt) return awaiting;
      await sleep(200);
    }
  }

  /** An update under a deadline, so a run whose worker is gone gives an error instead of a hang. */
  private async update<T>(runId: string, request: 'approve' | 'deny' | 'note', fn: () => Promise<T>): Promise<T> {
    try {
      return await this.client.connection.withDeadline(Date.now() + this.updateTimeoutMs, fn);
    } catch (err) {
      if (isGrpcDeadlineError(err) || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
        throw new WorkerTimeoutError(
          runId,
          request,
          this.updateTimeoutMs,
          `run ${runId} did not answer the ${request} within ${seconds(this.updateTimeoutMs)} (is a worker running?); it may still be delivered when one is`,
        );
      }
      // The validator's words are the useful part: `bob may not decide ...`, `already decided`.
      if (err instanceof WorkflowUpdateFailedError) throw new RequestRejectedError(runId, request, describeError(err).replace(/^rejected: /, ''));
      throw translate(err, runId);
    }
  }
}

/**
 * The note as the run will receive it: signed with `key`, or unsigned by `by`. Needs no server,
 * so a caller can refuse a bad note before connecting (InvalidRequestError).
 */
export function noteInput(runId: string, text: string, options: NoteOptions): NoteUpdateInput {
  if (options.key && options.by !== undefined) throw new InvalidRequestError('give a key or an author, not both (a signed note is by whoever the key names)');
  if (!options.key && options.by === undefined) throw new InvalidRequestError('an unsigned note needs an author (by)');
  const input = options.key ? signNote(options.key, runId, text) : { by: options.by, text };
  const parsed = NoteInput.safeParse(input);
  if (!parsed.success) throw new InvalidRequestError(formatZodError(parsed.error));
  return parsed.data;
}

/** The cancel signal's input, or InvalidRequestError; needs no server. */
export function cancelInput(options: CancelOptions): z.output<typeof CancelInput> {
  const parsed = CancelInput.safeParse({ by: options.by, reason: options.reason ?? '' });
  if (!parsed.success) throw new InvalidRequestError(formatZodError(parsed.error));
  return parsed.data;
}

/** What the addNote update takes: a signed note or an unsigned one with its author. */
export type NoteUpdateInput = z.output<typeof NoteInput>;

function fromSearchAttributes(sa: TypedSearchAttributes): Omit<ListRow, 'runId' | 'status' | 'startTime'> {
  return {
    domain: sa.get(domainKey) ?? null,
    caseId: sa.get(caseKey) ?? null,
    phase: sa.get(phaseKey) ?? null,
    terminal: sa.get(terminalKey) ?? null,
    stopReason: sa.get(stopReasonKey) ?? null,
  };
}

/** Temporal's "no such workflow" as this client's errors. */
function translate(err: unknown, runId: string): unknown {
  if (err instanceof WorkflowNotFoundError) return /already completed/i.test(err.message) ? new RunEndedError(runId) : new RunNotFoundError(runId);
  if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) return new RunNotFoundError(runId);
  return err;
}

function seconds(ms: number): string {
  return `${ms / 1000}s`;
}
