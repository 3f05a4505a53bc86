// Turning any error into the one line the CLI prints: Temporal's errors are unwrapped to the
// message that explains (a validator's rejection, a missing run), never a stack trace.
import {
  ServiceError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { z } from 'zod';

import { oneLine } from './usage.js';

export { CliError, oneLine, UsageError } from './usage.js';

export function formatZodError(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/** One line, whatever the error: nested causes are followed to the message that explains. */
export function describeError(err: unknown): string {
  return oneLine(rawMessage(err));
}

function rawMessage(err: unknown): string {
  if (err instanceof WorkflowNotFoundError) {
    const id = err.workflowId ? `run ${err.workflowId}` : 'run';
    return /already completed/i.test(err.message) ? `${id} has already ended` : `${id} not found`;
  }
  if (err instanceof WorkflowUpdateFailedError) {
    // A validator rejection or a failed handler: the cause carries the workflow's message.
    return err.cause ? `rejected: ${causeMessage(err.cause)}` : `rejected: ${err.message}`;
  }
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return 'the run did not answer the update in time (is a worker running?)';
  if (err instanceof WorkflowFailedError) return `run failed: ${err.cause ? causeMessage(err.cause) : err.message}`;
  if (err instanceof z.ZodError) return formatZodError(err);
  if (err instanceof ServiceError) return err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message;
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

function causeMessage(err: Error): string {
  let e: Error = err;
  // ApplicationFailure wrapping ApplicationFailure: the innermost message is the reason.
  while (e.cause instanceof Error && !e.message) e = e.cause;
  return e.message;
}
