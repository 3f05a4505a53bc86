// The typed client for agent runs: what a program (a ticketing integration, a back office, a
// test) calls to start, follow, decide on, annotate, cancel, export and find runs, and what the
// `agent` CLI is built on. It owns the rules every caller must follow: a start attaches only
// with the same settings, reads are bounded so a missing worker is an error and not a hang, a
// decision is signed over the request the run shows, and every failure is a typed error
// (client/agent-errors.ts) whose message is one line an operator can act on. What the server
// knows wins over what a worker replays: `inspect` (client/run-report.ts) is the one look at a
// run that status, watch, export and the console share, and it answers with no worker at all.
import { refusedOption, type OptionNames } from '../workflows/option-names.js';
import { listRows } from './list-rows.js';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  isGrpcCancelledError,
  isGrpcDeadlineError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { taskQueueFor } from '../worker/connection.js';
import type { AgentWorkflow } from '../workflows/agent.js';
import type { Domain } from '../workflows/contract.js';
import { addNoteUpdate, amendUpdate, approveUpdate, cancelSignal, denyUpdate, stateQuery, type RunView as StateAnswer } from '../workflows/messages.js';
import type { RunInput } from '../workflows/run-input.js';
import { SignedDecision } from '../workflows/trust/statement.js';
import {
  ClientOptionError,
  InvalidRequestError,
  RequestNotPendingError,
  RequestRejectedError,
  RunEndedError,
  RunNotFoundError,
  RunUnavailableError,
  WorkerTimeoutError,
} from './agent-errors.js';
import { connect } from './connect.js';
import { describeError, formatZodError } from './errors.js';
import { toRunExport, type RunExport } from './export-schema.js';
import { buildListQuery, DEFAULT_LIST_LIMIT, notServedWords, type ListFilter, type ListRow } from './list-query.js';
import { buildOf } from './run-build.js';
import { closedAsOf, noPollerWords, noticesOf, RunReport, statusWords, workflowTaskFailingWords, type PollerFacts, type Unanswered } from './run-report.js';
import { fromSearchAttributes, pollersOf, serverFacts } from './server-facts.js';
import { shownDigest, signAmend, signDecision, type KeyFile } from './sign.js';
import { startRun } from './start-run.js';
import { currentAnswer, toRunView, type RunView } from './run-view.js';
import { WatchCursor, type WatchItem } from './watch-cursor.js';
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
import { closedError, isNoPoller, readable, translate, unavailableError } from './agent-client-failures.js';
import { cancelInput, noteInput } from './message-inputs.js';

/** How long a state query may take before the run counts as unanswered (no worker?). */
export const QUERY_TIMEOUT_MS = 15_000;
/** How long an update (approve, deny, note) may take before the run counts as unanswered. */
export const UPDATE_TIMEOUT_MS = 30_000;
/** How long a decision waits for a just-raised request's approver directory before it is sent anyway. */
export const DIRECTORY_WAIT_MS = 20_000;
/** How often watch asks the run for its state. */
export const WATCH_POLL_MS = 300;
/** How long watch waits for a worker to poll a run's queue before it says none does. */
const WATCH_NO_WORKER_GRACE_MS = 5_000;
/** Every this many polls, watch asks the server whether the run closed without a terminal record. */
const CLOSED_CHECK_EVERY = 10;
/** One answer per task queue about its pollers serves every run on it for this long. */
const POLLERS_CACHE_MS = 2_000;

/** What `new AgentClient` takes (the compiler holds these to the options types): anything else is refused by name. */
const CLIENT_OPTIONS: OptionNames<AgentClientOptions> = {
  client: true,
  taskQueue: true,
  taskQueues: true,
  domains: true,
  queryTimeoutMs: true,
  updateTimeoutMs: true,
};
const CONNECT_OPTIONS: OptionNames<AgentClientConnectOptions> = {
  taskQueue: true,
  taskQueues: true,
  domains: true,
  queryTimeoutMs: true,
  updateTimeoutMs: true,
  dataConverter: true,
  plugins: true,
  env: true,
};

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
 * if (view.awaiting) await agent.approve(run.runId, view.awaiting.requestId, readKeyFile('you.key'), { comment: 'checked' });
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
  private readonly pollerAnswers = new Map<string, { at: number; answer: Promise<PollerFacts> }>();

  constructor(options: AgentClientOptions) {
    const refused = refusedOption('AgentClient', options, CLIENT_OPTIONS);
    if (refused) throw new ClientOptionError(refused);
    this.client = options.client;
    this.taskQueue = options.taskQueue;
    this.domains = options.domains;
    const named = (options.taskQueues ?? []).map((q) => String(q).trim()).filter((q) => q !== '');
    const domainQueues = (options.domains ?? []).map((d) => taskQueueFor([d], {}));
    this.queues = [...new Set([options.taskQueue, ...named, ...domainQueues])];
    this.queryTimeoutMs = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
    this.updateTimeoutMs = options.updateTimeoutMs ?? UPDATE_TIMEOUT_MS;
  }

  /**
   * Connects with the same settings as the worker (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
   * TEMPORAL_API_KEY, TLS, or a TEMPORAL_PROFILE). Call close() when done. Give it the data
   * converter your workers use (`dataConverter: { payloadCodecs: [...] }`) when they encode payloads.
   */
  static async connect(options: AgentClientConnectOptions = {}): Promise<AgentClient> {
    const refused = refusedOption('AgentClient.connect', options, CONNECT_OPTIONS);
    if (refused) throw new ClientOptionError(refused);
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
   * for with the same settings (model, budgets, approvers, effects, approval timeout) and be
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
    const timeoutMs = options.timeoutMs ?? this.queryTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    try {
      const answer = await this.client.connection.withDeadline(deadline, () =>
        this.client.workflow.getHandle<AgentWorkflow>(runId, options.executionRunId).query(stateQuery),
      );
      return currentAnswer(answer);
    } catch (err) {
      // At the deadline the call may end as DEADLINE_EXCEEDED or as CANCELLED: both mean no answer in time.
      if (isGrpcDeadlineError(err) || (isGrpcCancelledError(err) && Date.now() >= deadline - 50)) {
        throw new WorkerTimeoutError(
          runId,
          'state query',
          timeoutMs,
          `run ${runId} did not answer the state query within ${seconds(timeoutMs)} (is a worker running?)`,
        );
      }
      // The server refuses at once when its queue has had no poller for a while: say which queue.
      if (isNoPoller(err)) {
        const taskQueue = await this.describe(runId).then(
          (d) => d.taskQueue,
          () => '(unknown)',
        );
        throw new RunUnavailableError(runId, 'no_poller', taskQueue, `run ${runId}: ${noPollerWords(taskQueue, null)}`);
      }
      throw translate(err, runId);
    }
  }

  /**
   * One look at a run that answers whether or not a worker does: the server's facts (status,
   * task queue, whether any worker polls it, the last workflow-task failure, how it closed)
   * and the worker's view when it answered within the bound. The state query is not sent at all
   * when the server says nobody would answer it (no poller, a failing workflow task); `notices`
   * says in words what the run's own state cannot (terminated, no worker is polling, ...).
   */
  async inspect(runId: string, options: InspectOptions = {}): Promise<RunReport> {
    const facts = await serverFacts(this.client, runId, (taskQueue) => this.pollers(taskQueue), options.executionRunId).catch((err: unknown) => {
      throw translate(err, runId);
    });
    let unanswered: Unanswered | null = null;
    let view: StateAnswer | null = null;
    let asked = false;
    if (facts.workflowTaskFailure) {
      // The server holds a query to a run in this state until it times out: nobody can answer it.
      unanswered = { kind: 'workflow_task_failing', message: workflowTaskFailingWords(facts.workflowTaskFailure, facts.taskQueue) };
    } else if (facts.pollers.checked && facts.pollers.recent === 0) {
      unanswered = { kind: 'no_poller', message: noPollerWords(facts.taskQueue, facts.pollers.lastPollAt) };
    } else if (facts.closed?.as === 'continued_as_new') {
      // An execution that continued as new hands its state on: the run is the later execution.
    } else if (options.askWorker !== false) {
      asked = true;
      const timeoutMs = options.timeoutMs ?? this.queryTimeoutMs;
      try {
        view = await this.queryState(runId, { timeoutMs, ...(options.executionRunId ? { executionRunId: options.executionRunId } : {}) });
      } catch (err) {
        if (err instanceof RunNotFoundError) throw err;
        if (err instanceof WorkerTimeoutError)
          unanswered = { kind: 'timeout', message: `no worker answered the state query within ${seconds(timeoutMs)} (task queue ${facts.taskQueue})` };
        else if (err instanceof RunUnavailableError) unanswered = { kind: err.reason, message: noPollerWords(facts.taskQueue, facts.pollers.lastPollAt) };
        else unanswered = { kind: 'error', message: `the worker could not answer the state query: ${describeError(err)}` };
      }
    }
    return RunReport.parse({
      ...facts,
      answeredBy: view ? 'worker' : 'server',
      workerAsked: asked,
      unanswered,
      view,
      notices: noticesOf(facts, view, unanswered),
    });
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
  async assertServed(runId: string, doing: string): Promise<void> {
    const { taskQueue } = await this.describe(runId);
    if (!this.serves(taskQueue)) throw new InvalidRequestError(`run ${runId}: ${notServedWords(taskQueue, this.servedQueues)}; ${doing}`);
  }

  /** Whether any worker polls `taskQueue` now, per the server (one answer per queue for a moment). */
  async pollers(taskQueue: string): Promise<PollerFacts> {
    const now = Date.now();
    const cached = this.pollerAnswers.get(taskQueue);
    if (cached && now - cached.at < POLLERS_CACHE_MS) return cached.answer;
    const answer = pollersOf(this.client, taskQueue);
    this.pollerAnswers.set(taskQueue, { at: now, answer });
    if (this.pollerAnswers.size > 1_000)
      for (const [queue, entry] of this.pollerAnswers) if (now - entry.at >= POLLERS_CACHE_MS) this.pollerAnswers.delete(queue);
    return answer;
  }

  /**
   * What the server says about each listed run that its row alone does not: a running run whose
   * queue no worker polls, a run that closed without recording an outcome (terminated, timed
   * out, failed, continued as new). Keyed by the row itself (a run that continued as new is
   * listed once per execution). One pollers question per task queue, all at once.
   */
  async rowNotices(rows: readonly ListRow[]): Promise<Map<ListRow, string>> {
    const notices = new Map<ListRow, string>();
    const queues = [...new Set(rows.filter((r) => r.status === 'RUNNING').map((r) => r.taskQueue))];
    const polled = new Map(await Promise.all(queues.map(async (q) => [q, await this.pollers(q)] as const)));
    for (const row of rows) {
      const closed = closedAsOf(row.status);
      const p = polled.get(row.taskQueue);
      if (!closed && p?.checked && p.recent === 0) notices.set(row, noPollerWords(row.taskQueue, p.lastPollAt));
      else if (closed === 'continued_as_new') notices.set(row, 'continued as new: a later execution carries the run on');
      else if (closed && (closed !== 'completed' || row.phase !== 'terminal'))
        notices.set(row, `${statusWords(row.status)}${row.phase === 'terminal' ? '' : ' before the run recorded an outcome'}`);
    }
    return notices;
  }

  /**
   * Each new receipt, feedback, note and approval step of the run, once and in order, ending
   * with its terminal item. It asks the server first and every few polls (and whenever the
   * worker does not answer): a run that closed without a terminal record (terminated from
   * outside, failed, timed out) ends the iteration with RunClosedWithoutTerminalError saying
   * how, one nobody can answer for (no worker polls its queue, its workflow task keeps
   * failing) with RunUnavailableError saying why.
   */
  async *watch(runId: string, options: { pollMs?: number } = {}): AsyncGenerator<WatchItem, void, undefined> {
    const cursor = new WatchCursor();
    const pollMs = options.pollMs ?? WATCH_POLL_MS;
    let unservedSince: number | undefined;
    for (let poll = 0; ; poll++) {
      let report: RunReport | undefined;
      let view: StateAnswer | undefined;
      if (poll % CLOSED_CHECK_EVERY === 0 || unservedSince !== undefined) report = await this.inspect(runId);
      else {
        try {
          view = await this.queryState(runId);
        } catch (err) {
          if (err instanceof RunNotFoundError) throw err;
          report = await this.inspect(runId);
        }
      }
      if (report && !report.view && !report.closed && report.unanswered?.kind === 'no_poller') {
        // A worker that has just started may not have polled yet: it gets a few seconds to show up.
        unservedSince ??= Date.now();
        if (Date.now() - unservedSince < WATCH_NO_WORKER_GRACE_MS) {
          await sleep(pollMs);
          continue;
        }
      } else unservedSince = undefined;
      view ??= readable(report as RunReport);
      const run = toRunView(view);
      yield* cursor.take(run);
      if (run.terminal) return;
      if (report?.closed) throw closedError(report);
      await sleep(pollMs);
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
    await this.assertServed(runId, 'the decision was not sent');
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

  /**
   * The run record in the published schema (RunExport), validated before it is returned, with
   * what the server knows of the execution beside it (a terminated run says so). The record is
   * the run's own state, which only a worker can read: with none answering, RunUnavailableError
   * says why (no worker polls its queue, its workflow task is failing) instead of a partial record.
   */
  async export(runId: string): Promise<RunExport> {
    const report = await this.inspect(runId);
    if (!report.view) throw unavailableError(report, `cannot export run ${runId}`);
    return toRunExport(report.view, new Date(), {
      status: report.status,
      taskQueue: report.taskQueue,
      closeTime: report.closeTime,
      ...(report.closed ? { closed: report.closed } : {}),
      notices: report.notices,
    });
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
      build: buildOf(info),
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

  /**
   * Edit, then approve: asks for the pending call with `args` instead, signed with `key` over the
   * request the run shows. The run judges the amended call as a new proposal (gate, provenance,
   * precondition) and, if it passes, raises a new request for it, which needs its own approvals
   * (yours included). The old request closes as `amended`; `outcome` names the new request.
   */
  async amend(runId: string, requestId: string, args: Record<string, unknown>, key: KeyFile, options: DecisionOptions = {}): Promise<DecisionResult> {
    const awaiting = await this.pendingRequest(runId, requestId, 'approve');
    const signed = signAmend(key, runId, awaiting, args, options.comment ?? '', options.validForMs !== undefined ? { validForMs: options.validForMs } : {});
    const ack = await this.update(runId, 'amend', () => this.handle(runId).executeUpdate(amendUpdate, { args: [signed] }));
    return {
      runId,
      ...ack,
      tool: awaiting.tool,
      args,
      ...(awaiting.subject ? { subject: awaiting.subject } : {}),
      by: key.id,
      digest: awaiting.digest,
      expiresAt: signed.statement.expiresAt,
    };
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

  /**
   * The request to decide, once it is the pending one and (if just raised) its directory has
   * loaded, from a run this engine serves, answering as itself, whose reported digest is the
   * digest of the request it shows: what is signed is computed from the shown values (sign.ts).
   */
  private async pendingRequest(runId: string, requestId: string, kind: 'approve' | 'deny'): Promise<NonNullable<StateAnswer['awaiting']>> {
    const giveUpAt = Date.now() + DIRECTORY_WAIT_MS;
    await this.assertServed(runId, `nothing was signed (${kind})`);
    for (;;) {
      const view = await this.queryState(runId);
      const st = view.state;
      if (st.runId !== runId)
        throw new InvalidRequestError(`run ${runId} answers as run ${st.runId}: it is not the run asked for; nothing was signed (${kind})`);
      if (st.terminal) throw new RunEndedError(runId, `run ${runId} has already ended (${st.terminal.class}/${st.terminal.reason}); nothing to ${kind}`);
      const awaiting = view.awaiting;
      // A request just raised is shown once its approver directory has loaded (a moment).
      if (!awaiting && st.phase.name === 'awaiting_approval' && Date.now() < giveUpAt) {
        await sleep(100);
        continue;
      }
      if (!awaiting) throw new RequestNotPendingError(runId, requestId, `run ${runId} has no pending approval (phase ${st.phase.name})`);
      if (awaiting.requestId !== requestId) {
        throw new RequestNotPendingError(
          runId,
          requestId,
          `request ${requestId} is not pending on run ${runId} (the pending request is ${awaiting.requestId})`,
        );
      }
      if (!awaiting.signed) {
        throw new RequestNotPendingError(
          runId,
          requestId,
          `run ${runId} predates signed approvals; its request ${requestId} cannot be decided with a key (cancel the run instead)`,
        );
      }
      const shown = shownDigest({ runId, ...awaiting, chain: st.chain });
      if (!shown.ok) throw new InvalidRequestError(shown.error);
      // Until the worker's directory is loaded nobody is eligible and the run would refuse any
      // decision as "still loading": a request raised a moment ago gets a few seconds.
      if (awaiting.eligible.length > 0 || Date.now() >= giveUpAt) return { ...awaiting, digest: shown.digest };
      await sleep(200);
    }
  }

  /** An update under a deadline, so a run whose worker is gone gives an error instead of a hang. */
  private async update<T>(runId: string, request: 'approve' | 'deny' | 'amend' | 'note', fn: () => Promise<T>): Promise<T> {
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

function seconds(ms: number): string {
  return `${ms / 1000}s`;
}

/** AGENT_TASK_QUEUES: the team's other queues, comma-separated (blanks ignored). */
function queuesFromEnv(env: NodeJS.ProcessEnv): string[] {
  return (env.AGENT_TASK_QUEUES ?? '')
    .split(',')
    .map((q) => q.trim())
    .filter((q) => q !== '');
}
