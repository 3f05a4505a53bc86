// The engine's retry, timeout and error-type policy, in one place. The workflow builds its
// activity proxies from it and the activities decide "retry or report" from it, so the two can
// never disagree about how many attempts a call gets (the activity must know which attempt is
// its last: a last attempt reports its failure as a result instead of throwing it). A tool's
// default freshness and size live here too, beside the other limits a domain need not state.
// Workflow-safe: plain data only.
//
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/common';

// Changing a value here changes new runs only where it changes what an activity returns; the
// activity options themselves are not part of Temporal's replay check.

/**
 * How long a tool's answer stays fresh when its contract does not say (ToolContract.maxAgeMs):
 * a minute, so a tool that does not say is read again rather than relied on stale.
 */
export const DEFAULT_MAX_AGE_MS = 60_000;

/** How many bytes (JSON) of a tool's output anyone sees when its contract does not say (ToolContract.maxObservationBytes). */
export const DEFAULT_MAX_OBSERVATION_BYTES = 4_096;

/** Attempts of a tool call that may be retried (a read, an idempotent effect); any other gets one. */
export const TOOL_ATTEMPTS = 3;

/** Activities heartbeat this often while they wait (activities/heartbeat.ts). */
export const HEARTBEAT_EVERY_MS = 1_000;

/** How long one request to a system of record may take, unless the worker is told otherwise. */
export const DEFAULT_TOOL_TIMEOUT_MS = 5_000;

/**
 * How long after it was sent a request may still commit, when the effect's contract does not say
 * (ToolContract.commitWindowMs): the effect activity's own attempts (TOOL_ATTEMPTS of 30 s with
 * backoff) are over by then. A readback that finds nothing sooner, and could not fence the key,
 * is asked again once this has passed before the run believes it.
 */
export const DEFAULT_COMMIT_WINDOW_MS = 120_000;

/** How often a readback asks the system of record before it calls the outcome undecided. */
export const DEFAULT_READBACK_ATTEMPTS = 3;

/**
 * Error types the engine's activities throw, as Temporal failure types. The workflow names the
 * ones it must not retry; the rest are retried as their proxy allows.
 */
export const ErrorTypes = {
  /** The model adapter or its configuration cannot work: retrying would fail the same way. */
  modelConfig: 'ModelConfigError',
  /** A scripted model ran out of replies (tests): a loud failure, never retried. */
  scriptExhausted: 'ModelScriptExhausted',
  /** The run's input (or carried state) is refused: the execution fails at once. */
  invalidRunInput: 'InvalidRunInput',
  /** A tool call that will be tried again (not its last attempt). */
  toolTransient: 'ToolTransient',
  toolTimeout: 'ToolTimeout',
  /** An Update refused while the run acts on a result it just checked (arrivals.ts): send it again. */
  runBusy: 'RunBusy',
  /** A tool call, readback or probe scheduled by a workflow that is not one of the engine's runs (activities/caller.ts). */
  notAnAgentRun: 'NotAnAgentRun',
} as const;

/**
 * Activity options by kind of call. Heartbeats (every HEARTBEAT_EVERY_MS) let a dead worker be
 * noticed in seconds; start-to-close bounds a live but stuck call.
 */
export const modelOptions: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '5 seconds',
  // Bounded by time, not attempts (the call's scheduleToCloseTimeout, MODEL_OUTAGE_MS): a model
  // server that takes a minute to restart is ridden out, backing off to one try every 30 s.
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [ErrorTypes.scriptExhausted, ErrorTypes.modelConfig],
  },
};

/**
 * How long a run waits out a model endpoint that does not answer (refused connections, 5xx, 429,
 * timeouts, a model worker that died) before it escalates `model_unavailable`, naming the turn it
 * was on. A run may set its own (RunInput.modelOutageMs); the run's deadline still holds.
 */
export const MODEL_OUTAGE_MS = 5 * 60_000;

export const probeOptions: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '5 seconds',
  retry: { maximumAttempts: 3, initialInterval: '500 milliseconds' },
};

/**
 * Asking the server about the execution that continued: a rare call (once per rollover) that
 * must not fail a healthy run over a brief outage, so it is retried longer than a probe.
 */
export const continuationOptions: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, initialInterval: '1 second' },
};

/**
 * A tool call: effects may take longer than reads, and a call that is not idempotent gets
 * exactly one attempt (an unclear outcome is read back, never retried blind).
 */
export function toolCallOptions(kind: 'read' | 'effect', retried: boolean): ActivityOptions {
  return {
    startToCloseTimeout: kind === 'effect' ? '30 seconds' : '20 seconds',
    heartbeatTimeout: '4 seconds',
    retry: { maximumAttempts: retried ? TOOL_ATTEMPTS : 1, initialInterval: '300 milliseconds', backoffCoefficient: 2 },
  };
}

/**
 * The local activity that checks a result's seal (workflows/sealed.ts): it only computes an
 * HMAC, so a few tries bound it; a check that cannot run leaves the result a claim.
 */
export const sealCheckOptions: LocalActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
};

/** Readbacks in a row whose answer no worker sealed before the outcome is called undecided. */
export const CLAIMED_READBACKS = 3;
