// How Temporal's answers become AgentClient's typed errors: a workflow the server does not know,
// a queue nobody polls, a run that closed without a terminal record or that no worker answers
// for. Words come from client/run-report.ts, so every tool says them the same way.
import { isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';
import type { RunView as StateAnswer } from '../workflows/messages.js';
import { RunClosedWithoutTerminalError, RunEndedError, RunNotFoundError, RunUnavailableError } from './agent-errors.js';
import { closedDetail, closedWords, type RunReport } from './run-report.js';

const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

/** The worker's view in a report, or the error that says why there is none (closed, no worker, failing task). */
export function readable(report: RunReport): StateAnswer {
  if (report.view) return report.view;
  if (report.closed) throw closedError(report);
  throw unavailableError(report, `run ${report.runId}`);
}

export function closedError(report: RunReport): RunClosedWithoutTerminalError {
  const detail = report.closed ? closedDetail(report.closed).replace(/^ /, '') : '';
  const why = report.unanswered && report.unanswered.kind !== 'timeout' ? `${detail ? '; ' : ''}${report.unanswered.message}` : '';
  return new RunClosedWithoutTerminalError(report.runId, report.status, `${detail}${why}` || undefined);
}

export function unavailableError(report: RunReport, what: string): RunUnavailableError {
  const unanswered = report.unanswered ?? { kind: 'error' as const, message: 'the worker did not answer' };
  const closed = report.closed ? `${closedWords(report.closed, false)}; ` : '';
  return new RunUnavailableError(report.runId, unanswered.kind, report.taskQueue, `${what}: ${closed}${unanswered.message}`);
}

/** The server's "no poller seen for task queue recently" (FAILED_PRECONDITION) to a query. */
export function isNoPoller(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (isGrpcServiceError(e) && e.code === GRPC_FAILED_PRECONDITION && /poller/i.test(e.details ?? e.message)) return true;
  }
  return false;
}

/** The server's gRPC answer that it has no such execution (or namespace). */
export function isGrpcNotFound(err: unknown): boolean {
  return isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND;
}

/** Temporal's "no such workflow" as this client's errors. */
export function translate(err: unknown, runId: string): unknown {
  if (err instanceof WorkflowNotFoundError) return /already completed/i.test(err.message) ? new RunEndedError(runId) : new RunNotFoundError(runId);
  if (isGrpcNotFound(err)) return new RunNotFoundError(runId);
  return err;
}

/** For a `.catch`: rethrows Temporal's "no such workflow" as this client's errors (translate), anything else as it came. */
export function translated(runId: string): (err: unknown) => never {
  return (err) => {
    throw translate(err, runId);
  };
}
