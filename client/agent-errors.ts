// The errors AgentClient throws, one class per thing that can go wrong with a request about a
// run, so a program can tell "no such run" from "no worker answered" from "the run refused"
// without reading messages. Each message is the one line the CLI prints. Kept free of heavy
// imports: the CLI maps these to exit codes without loading Temporal's client. None of them is
// a CLI error: a program using AgentClient never loads the command line's classes.
import { AgentError } from '../workflows/agent-error.js';
import type { RefusedOption } from '../workflows/option-names.js';

/**
 * The root of every error AgentClient throws: `AgentClientError.isInstance(err)` is true for
 * each class below. The CLI exits 1 on these, and 2 on an {@link InvalidRequestError}.
 */
export class AgentClientError extends AgentError {
  static override readonly errorName: string = 'AgentClientError';
  constructor(
    /** The run the request was about; undefined when it was refused before naming one. */
    readonly runId: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A request that is wrong in itself (a bad filter, a note without an author, ...), refused
 * before anything reaches the server. The CLI exits 2 on it, as for a usage error.
 */
export class InvalidRequestError extends AgentClientError {
  static override readonly errorName: string = 'InvalidRequestError';
  constructor(message: string) {
    super(undefined, message);
  }
}

/** A run input the engine would refuse: bad shape, unknown domain, or a case id the domain does not accept. */
export class InvalidRunInputError extends InvalidRequestError {
  static override readonly errorName: string = 'InvalidRunInputError';
}

/** No run with this id on the server. */
export class RunNotFoundError extends AgentClientError {
  static override readonly errorName: string = 'RunNotFoundError';
  constructor(runId: string) {
    super(runId, `run ${runId} not found`);
  }
}

/** The run has ended: there is nothing left to decide, note or cancel. */
export class RunEndedError extends AgentClientError {
  static override readonly errorName: string = 'RunEndedError';
  constructor(runId: string, message = `run ${runId} has already ended`) {
    super(runId, message);
  }
}

/**
 * The run did not answer a query or an update in time: most likely no worker polls its task
 * queue. An update may still be delivered when a worker comes back.
 */
export class WorkerTimeoutError extends AgentClientError {
  static override readonly errorName: string = 'WorkerTimeoutError';
  constructor(
    runId: string,
    /** What went unanswered: `state query`, `approve`, `note`, ... */
    readonly what: string,
    readonly timeoutMs: number,
    message: string,
  ) {
    super(runId, message);
  }
}

/** The request named is not the one the run is waiting on (or the run waits on none). */
export class RequestNotPendingError extends AgentClientError {
  static override readonly errorName: string = 'RequestNotPendingError';
  constructor(
    runId: string,
    readonly requestId: string,
    message: string,
  ) {
    super(runId, message);
  }
}

/** The run's validator refused the request: its reason (`bob may not decide ...`) is the message. */
export class RequestRejectedError extends AgentClientError {
  static override readonly errorName: string = 'RequestRejectedError';
  constructor(
    runId: string,
    readonly request: 'approve' | 'deny' | 'amend' | 'note',
    readonly reason: string,
  ) {
    super(runId, `${request} rejected: ${reason}`);
  }
}

/**
 * A start found the case's run already there with other settings. The run was not changed;
 * `differences` says, one phrase per setting, what it has and what this start asked for.
 */
export class RunSettingsConflictError extends AgentClientError {
  static override readonly errorName: string = 'RunSettingsConflictError';
  constructor(
    runId: string,
    readonly domain: string,
    readonly caseId: string,
    readonly differences: readonly string[],
    /** False when the run has already ended. */
    readonly running: boolean,
  ) {
    super(
      runId,
      `a run for ${domain} ${caseId} ${running ? 'already exists' : 'already ran'} with different settings (${differences.join('; ')}); it was not changed`,
    );
  }
}

/** The run closed (terminated, failed, timed out) without writing a terminal record. */
export class RunClosedWithoutTerminalError extends AgentClientError {
  static override readonly errorName: string = 'RunClosedWithoutTerminalError';
  constructor(
    runId: string,
    /** Temporal's execution status, e.g. TERMINATED. */
    readonly status: string,
    /** What the server knows about how it closed, in words (`terminated at ... by ...: reason`). */
    readonly detail?: string,
  ) {
    super(runId, `run ${runId} closed (${status.toLowerCase().replace(/_/g, ' ')}) without a terminal record${detail ? `: ${detail}` : ''}`);
  }
}

/**
 * Nothing can answer for the run right now: no worker polls its task queue, its workflow task
 * keeps failing, or its worker did not answer. The message says which, in words, with the task
 * queue; `AgentClient.inspect` still gives what the server knows.
 */
export class RunUnavailableError extends AgentClientError {
  static override readonly errorName: string = 'RunUnavailableError';
  constructor(
    runId: string,
    readonly reason: 'no_poller' | 'workflow_task_failing' | 'timeout' | 'error',
    /** The run's own task queue, as the server describes it. */
    readonly taskQueue: string,
    message: string,
  ) {
    super(runId, message);
  }
}

/** An option `new AgentClient` or `AgentClient.connect` does not take: a misspelt one, or one a release removed (`replacement`). */
export class ClientOptionError extends AgentClientError {
  static override readonly errorName: string = 'ClientOptionError';
  readonly where: string;
  readonly option: string;
  readonly replacement: string | undefined;
  constructor(refused: RefusedOption) {
    super(undefined, refused.message);
    this.where = refused.where;
    this.option = refused.option;
    this.replacement = refused.replacement;
  }
}
