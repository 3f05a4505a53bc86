// The typed client for agent runs: what a program (a ticketing integration, a back office, a
// test) calls to start, follow, decide on, annotate, cancel, export and find runs, and what the
// `agent` CLI is built on. It owns the rules every caller must follow: a start attaches only
// with the same settings, reads are bounded so a missing worker is an error and not a hang, a
// decision is signed over the request the run shows, and every failure is a typed error
// (client/agent-errors.ts) whose message is one line an operator can act on. What the server
// knows wins over what a worker replays: `inspect` (client/inspect-run.ts) is the one look at a
// run that status, watch, export and the console share, and it answers with no worker at all.
// This file is what a caller reads: the class and its documented methods. The work each one does
// is in the file it calls, so reading what the client offers does not mean reading how.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { taskQueueFor } from '../worker/connection.js';
import type { AgentWorkflow } from '../workflows/agent.js';
import type { Domain } from '../workflows/contract.js';
import { addNoteUpdate, amendUpdate, approveUpdate, cancelSignal, denyUpdate, type RunView as StateAnswer } from '../workflows/messages.js';
import type { RunInput } from '../workflows/run-input.js';
import { SignedDecision } from '../workflows/trust/statement.js';
import { translated, unavailableError } from './agent-client-failures.js';
import type {
  AgentClientConnectOptions,
  AgentClientOptions,
  CancelOptions,
  CancelResult,
  DecisionOptions,
  DecisionResult,
  InspectOptions,
  NoteOptions,
  NoteResult,
  RunDescription,
  SignedDecisionResult,
  StartedRun,
} from './agent-client-types.js';
import { InvalidRequestError, RunEndedError } from './agent-errors.js';
import { boundedStateQuery, boundedUpdate, QUERY_TIMEOUT_MS, UPDATE_TIMEOUT_MS, type UpdateName } from './bounded-calls.js';
import { queuesFromEnv, refuseUnknownOptions, servedQueuesOf } from './client-options.js';
import { connect } from './connect.js';
import { formatZodError } from './errors.js';
import { toRunExport, type RunExport } from './export-schema.js';
import { inspectRun } from './inspect-run.js';
import { buildListQuery, DEFAULT_LIST_LIMIT, notServedWords, type ListFilter, type ListRow } from './list-query.js';
import { listRows } from './list-rows.js';
import { cancelInput, noteInput } from './message-inputs.js';
import { decisionResult, pendingRequest, requestPin } from './pending-request.js';
import { QueuePollers, rowNotices } from './queue-pollers.js';
import { runBindingOf } from './run-binding-of.js';
import { describeRun } from './run-description.js';
import type { PollerFacts, RunReport } from './run-report.js';
import { type RunView } from './run-view.js';
import { toRunView } from './to-run-view.js';
import { signAmend, signDecision, type KeyFile } from './sign.js';
import { startRun } from './start-run.js';
import { watchRun, type WatchedItem } from './watch-run.js';

export { QUERY_TIMEOUT_MS, UPDATE_TIMEOUT_MS } from './bounded-calls.js';
export { DIRECTORY_WAIT_MS } from './pending-request.js';
export { WATCH_POLL_MS } from './watch-run.js';

/**
 * The typed client for agent runs: start, state, watch, approve, deny, amend, note, cancel,
 * inspect, export, list. Reads are bounded (a run nobody answers for is an error, not a hang),
 * a decision is signed over the request the run shows, and every failure is a typed error.
 *
 * @example
 * ```ts
 * const agent = await AgentClient.connect({ domains: [orders] });
 * const run = await agent.start({ domain: 'orders', caseId: 'O-1001', model: { adapter: 'rules' } });
 * const view = await agent.state(run.runId);
 * if (view.awaiting) await agent.approve(run.runId, view.awaiting.requestId, readKeyFile('you.key'), { comment: 'checked', digest: view.awaiting.digest });
 * for await (const item of agent.watch(run.runId)) if (item.type === 'terminal') console.log(item.class, item.reason);
 * await agent.close();
 * ```
 */
export class AgentClient {
  readonly client: Client;
  readonly taskQueue: string;
  readonly domains: readonly Domain[] | undefined;
  /** Every task queue whose runs are this engine's (see servedQueues). */
  private readonly queues: readonly string[];
  private readonly queryTimeoutMs: number;
  private readonly updateTimeoutMs: number;
  /** Set when connect() made the connection: close() closes it. */
  private closeConnection: (() => Promise<void>) | undefined;
  private readonly pollerAnswers: QueuePollers;

  constructor(options: AgentClientOptions) {
    refuseUnknownOptions('AgentClient', options);
    this.client = options.client;
    this.taskQueue = options.taskQueue;
    this.domains = options.domains;
    this.queues = servedQueuesOf(options);
    this.queryTimeoutMs = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
    this.updateTimeoutMs = options.updateTimeoutMs ?? UPDATE_TIMEOUT_MS;
    this.pollerAnswers = new QueuePollers(options.client);
  }

  /**
   * Connects with the same settings as the worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
   * TEMPORAL_API_KEY, TLS, or a TEMPORAL_PROFILE). Call close() when done. Give it the data
   * converter your workers use (`dataConverter: { payloadCodecs: [...] }`) when they encode payloads.
   */
  static async connect(options: AgentClientConnectOptions = {}): Promise<AgentClient> {
    refuseUnknownOptions('AgentClient.connect', options);
    const { dataConverter, plugins, env, ...rest } = options;
    const connected = await connect({ ...(dataConverter ? { dataConverter } : {}), ...(plugins ? { plugins } : {}), ...(env ? { env } : {}) });
    const agent = new AgentClient({
      ...rest,
      client: connected.client,
      taskQueue: options.taskQueue ?? taskQueueFor(options.domains ?? [], env),
      taskQueues: options.taskQueues ?? queuesFromEnv(env ?? process.env),
    });
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
   * for with the same settings (start-settings.ts: model, budgets, approvers, effects, team, ...) and be
   * served by this client's task queue: otherwise RunSettingsConflictError, and the run is not
   * changed. A bad input (InvalidRunInputError) is refused before anything reaches the server.
   * The same path as `startRun` (client/start-run.ts): the server decides which of two
   * concurrent starts made the run, and the other attaches.
   */
  async start(input: RunInput): Promise<StartedRun> {
    return await startRun(this.client, input, this.taskQueue, this.domains);
  }

  /**
   * The run as its worker reports it (RunView: phase, outcome, effects, the pending approval,
   * budgets, evidence in summary), bounded: WorkerTimeoutError when nobody answers,
   * RunUnavailableError when the server says no worker has polled its queue for a while. This
   * is the worker's view only: a terminated run still reads as it was. `inspect` says what the
   * server knows beside it.
   */
  async state(runId: string, options: { timeoutMs?: number; executionRunId?: string } = {}): Promise<RunView> {
    return toRunView(await this.queryState(runId, options));
  }

  /**
   * The state query's own answer, the engine's internal run state inside: for the engine's own
   * tools (watch, export, the CLI, the console), which change with it. Its shape is not part of
   * the package's interface; programs use state().
   *
   * @internal
   */
  async queryState(runId: string, options: { timeoutMs?: number; executionRunId?: string } = {}): Promise<StateAnswer> {
    return await boundedStateQuery(this.client, runId, {
      timeoutMs: options.timeoutMs ?? this.queryTimeoutMs,
      executionRunId: options.executionRunId,
      taskQueueOf: () => this.describe(runId).then((d) => d.taskQueue),
    });
  }

  /**
   * One look at a run that answers whether or not a worker does: the server's facts (status,
   * task queue, whether any worker polls it, the last workflow-task failure, how it closed)
   * and the worker's view when it answered within the bound. The state query is not sent at all
   * when the server says nobody would answer it (no poller, a failing workflow task); `notices`
   * says in words what the run's own state cannot (terminated, no worker is polling, ...).
   */
  async inspect(runId: string, options: InspectOptions = {}): Promise<RunReport> {
    return await inspectRun(this, runId, options, this.queryTimeoutMs);
  }

  /**
   * The task queues whose runs are this engine's: the one it starts runs on, the others it was
   * given (taskQueues, AGENT_TASK_QUEUES) and each of its domains' own (`agents-<name>`). They
   * are named by the team, never found: a run on another queue is answered for by whoever polls
   * that queue (anyone who can start a workflow can start one that looks like ours, with a
   * worker of their own, and call it anything), so lists mark it, the inbox shows no card for it
   * and a decision is not signed for it.
   */
  get servedQueues(): readonly string[] {
    return this.queues;
  }

  /** Each of the engine's queues and whether a worker polls it now: the console's header. */
  async queueStatus(): Promise<Array<{ taskQueue: string; pollers: PollerFacts }>> {
    return Promise.all(this.servedQueues.map(async (taskQueue) => ({ taskQueue, pollers: await this.pollers(taskQueue) })));
  }

  /** Whether runs on `taskQueue` are this engine's (see servedQueues). */
  serves(taskQueue: string): boolean {
    return this.servedQueues.includes(taskQueue);
  }

  /**
   * Refuses a run whose execution the server places on a queue this engine does not serve:
   * InvalidRequestError naming both queues. Asked of the server (describe), never of the run.
   */
  async assertServed(runId: string, doing: string): Promise<RunDescription> {
    const description = await this.describe(runId);
    if (!this.serves(description.taskQueue))
      throw new InvalidRequestError(`run ${runId}: ${notServedWords(description.taskQueue, this.servedQueues)}; ${doing}`);
    return description;
  }

  /** Whether any worker polls `taskQueue` now, per the server (one answer per queue for a moment). */
  async pollers(taskQueue: string): Promise<PollerFacts> {
    return this.pollerAnswers.of(taskQueue);
  }

  /**
   * What the server says about each listed run that its row alone does not: a running run whose
   * queue no worker polls, a run that closed without recording an outcome (terminated, timed
   * out, failed, continued as new). Keyed by the row itself (a run that continued as new is
   * listed once per execution). One pollers question per task queue, all at once.
   */
  async rowNotices(rows: readonly ListRow[]): Promise<Map<ListRow, string>> {
    return rowNotices(rows, (taskQueue) => this.pollers(taskQueue));
  }

  /**
   * Each new receipt, feedback, note and approval step of the run, once and in order, ending
   * with its terminal item. It asks the server first and every few polls (and whenever the
   * worker does not answer): a run that closed without a terminal record (terminated from
   * outside, failed, timed out) ends the iteration with RunClosedWithoutTerminalError saying
   * how, one nobody can answer for (no worker polls its queue, its workflow task keeps
   * failing) with RunUnavailableError saying why. An approval request carries the `digest` of
   * the call it shows: give it to approve, deny or amend (`options.digest`) to decide that call.
   */
  watch(runId: string, options: { pollMs?: number } = {}): AsyncGenerator<WatchedItem, void, undefined> {
    return watchRun(this, runId, options);
  }

  /**
   * Approves the pending request `requestId`, signed with `key` over the exact call the run shows.
   * Give `options.digest` (the digest you read, or its first 16 characters), or a `requestId` as
   * status prints it (`<request id>#<prefix>`), and nothing is signed unless that is still the
   * call pending under the id (RequestNotPendingError otherwise): a bare id decides whatever
   * call is pending under it when this runs.
   */
  approve(runId: string, requestId: string, key: KeyFile, options: DecisionOptions = {}): Promise<DecisionResult> {
    return this.decide('approve', runId, requestId, key, options);
  }

  /** Denies the pending request `requestId`; the model is told, with the comment. Pinned to a call as approve is. */
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
    await this.assertServed(runId, 'the decision was not sent');
    const ack = await this.update(runId, kind, () => this.handle(runId).executeUpdate(kind === 'approve' ? approveUpdate : denyUpdate, { args: [signed] }));
    const { by, digest, expiresAt } = parsed.data.statement;
    return { runId, ...ack, by, digest, expiresAt };
  }

  /** Adds a note: signed with `key` it is trusted operator text, unsigned (`by`) it is untrusted text. */
  async note(runId: string, text: string, options: NoteOptions): Promise<NoteResult> {
    noteInput(runId, text, options); // refused before the server is asked anything
    // A signed note names the run's namespace and settings, so that it vouches in no other run of
    // the id; one that cannot name them is not signed at all.
    let bound: string | undefined;
    if (options.key) {
      const binding = await runBindingOf(this.client, runId);
      if (!binding.ok) throw new InvalidRequestError(`the note was not signed: run ${runId} could not be named, ${binding.reason}`);
      bound = binding.bound;
    }
    const input = noteInput(runId, text, options, bound);
    const ack = await this.update(runId, 'note', () => this.handle(runId).executeUpdate(addNoteUpdate, { args: [input] }));
    const signed = 'statement' in input;
    return { runId, accepted: ack.accepted, trusted: ack.trusted, signed, by: signed ? input.statement.by : input.by };
  }

  /** Stops a running run: a pending approval is closed and nothing further runs. */
  async cancel(runId: string, options: CancelOptions): Promise<CancelResult> {
    const input = cancelInput(options);
    const { status } = await this.describe(runId);
    if (status !== 'RUNNING') throw new RunEndedError(runId, `run ${runId} is not running (${status.toLowerCase()})`);
    await this.handle(runId).signal(cancelSignal, input).catch(translated(runId));
    return { runId, cancelRequested: true, by: input.by, reason: input.reason };
  }

  /**
   * The run record in the published schema (RunExport), validated before it is returned, with
   * what the server knows of the execution beside it (a terminated run says so). The record is
   * the run's own state, which only a worker can read: with none answering, RunUnavailableError
   * says why (no worker polls its queue, its workflow task is failing) instead of a partial record.
   */
  async export(runId: string): Promise<RunExport> {
    const report = await this.inspect(runId);
    if (!report.view) throw unavailableError(report, `cannot export run ${runId}`);
    const { status, taskQueue, closeTime, closed, notices } = report;
    return toRunExport(report.view, new Date(), { status, taskQueue, closeTime, ...(closed ? { closed } : {}), notices });
  }

  /**
   * Runs by domain, phase or outcome, from the server's visibility store (eventually consistent).
   * Each row says whether its task queue is one this engine serves (`served`); `served: true`
   * lists only those, filtered by the server.
   */
  async list(filter: ListFilter = {}): Promise<ListRow[]> {
    const query = buildListQuery(filter, this.servedQueues);
    const limit = filter.limit ?? DEFAULT_LIST_LIMIT;
    return (await listRows(this.client, query, limit)).map((row) => ({ ...row, served: this.serves(row.taskQueue) }));
  }

  /** What the server knows about the run (status, search attributes) without asking a worker. */
  async describe(runId: string): Promise<RunDescription> {
    return await describeRun(this.client, runId);
  }

  /** The run's Temporal history (for replaying it against new workflow code). */
  async history(runId: string): Promise<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>> {
    return await this.handle(runId).fetchHistory().catch(translated(runId));
  }

  /**
   * Edit, then approve: asks for the pending call with `args` instead, signed with `key` over the
   * request the run shows. The run judges the amended call as a new proposal (gate, provenance,
   * precondition) and, if it passes, raises a new request for it, which needs its own approvals
   * (yours included). The old request closes as `amended`; `outcome` names the new request.
   * Pinned to the call you were shown as approve is.
   */
  async amend(runId: string, requestId: string, args: Record<string, unknown>, key: KeyFile, options: DecisionOptions = {}): Promise<DecisionResult> {
    const { requestId: id, pin } = requestPin(requestId, options.digest);
    const awaiting = await pendingRequest(this, runId, id, 'approve', pin);
    const signed = signAmend(key, runId, awaiting, args, options.comment ?? '', validity(options));
    const ack = await this.update(runId, 'amend', () => this.handle(runId).executeUpdate(amendUpdate, { args: [signed] }));
    return decisionResult(runId, ack, awaiting, args, key.id, signed.statement.expiresAt);
  }

  private async decide(kind: 'approve' | 'deny', runId: string, requestId: string, key: KeyFile, options: DecisionOptions): Promise<DecisionResult> {
    const { requestId: id, pin } = requestPin(requestId, options.digest);
    const awaiting = await pendingRequest(this, runId, id, kind, pin);
    const signed = signDecision(key, runId, awaiting, kind, options.comment ?? '', validity(options));
    const ack = await this.update(runId, kind, () => this.handle(runId).executeUpdate(kind === 'approve' ? approveUpdate : denyUpdate, { args: [signed] }));
    return decisionResult(runId, ack, awaiting, awaiting.args, key.id, signed.statement.expiresAt);
  }

  private update<T>(runId: string, request: UpdateName, fn: () => Promise<T>): Promise<T> {
    return boundedUpdate(this.client, runId, request, this.updateTimeoutMs, fn);
  }
}

/** How long a signed decision stays valid, when the caller says. */
function validity(options: DecisionOptions): { validForMs?: number } {
  return options.validForMs !== undefined ? { validForMs: options.validForMs } : {};
}
