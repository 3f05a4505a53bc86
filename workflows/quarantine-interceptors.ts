// The workflow side of the worker's quarantine (worker/quarantine-codec.ts): what the codec could
// not decode reaches the sandbox as a marker, and this module decides what a marker means where it
// arrives. From a client it is refused and the run goes on: a signal is dropped (counted and
// logged without its text), an Update is rejected by its validator before it costs history, a
// query answers an error. In the run's own input it is a worker that lacks a key: a plain Error,
// which fails the workflow task (retried until the key is back), never the workflow.
//
// Installed in every bundle made with agentPlugin (its bundler hook); it adds no commands, so a
// history replays the same with or without it.
import { log, metricMeter, type WorkflowInterceptorsFactory, type WorkflowInboundCallsInterceptor } from '@temporalio/workflow';
import { describeUndecodable, firstUndecodable, plainName } from './quarantine-marker.js';

/**
 * A string the bundle carries when this module is in it: agentPlugin looks for it in a prebuilt
 * bundle before it quarantines payloads, since a marker with no interceptor to meet it would reach
 * the agent workflow's input parsing and fail the run instead of the task.
 */
export const QUARANTINE_INTERCEPTORS_ID = 'bounded-react-temporal.quarantine-interceptors.v1';

/** Counted per kind of message, so an operator sees a run being sent what its worker cannot read. */
export const UNDECODABLE_COUNTER = 'agent_undecodable_payloads';

/** The validator's refusal: fixed, so nothing the sender chose is echoed into history or traces. */
export const UNDECODABLE_UPDATE_MESSAGE = "this worker could not decode the Update's payload; nothing was recorded";
export const UNDECODABLE_QUERY_MESSAGE = "this worker could not decode the query's arguments";

function count(kind: 'signal' | 'update' | 'query'): void {
  metricMeter.createCounter(UNDECODABLE_COUNTER, 'payloads', 'messages refused because their payload could not be decoded').add(1, { kind });
}

const inbound: WorkflowInboundCallsInterceptor = {
  async execute(input, next) {
    const marker = firstUndecodable(input.args);
    // A plain Error (not an ApplicationFailure) fails the workflow task, which Temporal retries.
    if (marker) throw new Error(`the run's input is ${describeUndecodable(marker)}, which this worker cannot decode: add the key to its ring`);
    return next(input);
  },
  async handleSignal(input, next) {
    const marker = firstUndecodable(input.args);
    if (!marker) return next(input);
    count('signal');
    log.warn(`dropped signal ${plainName(input.signalName)}: ${describeUndecodable(marker)}`);
  },
  validateUpdate(input, next) {
    if (firstUndecodable(input.args)) {
      count('update');
      throw new Error(UNDECODABLE_UPDATE_MESSAGE);
    }
    next(input);
  },
  async handleUpdate(input, next) {
    const marker = firstUndecodable(input.args);
    // Only on replay (validators run only for new Updates): an Update accepted under a key this
    // worker lacks. A plain Error fails the task, as for the input.
    if (marker)
      throw new Error(
        `Update ${plainName(input.name)} in this run's history is ${describeUndecodable(marker)}, which this worker cannot decode: add the key to its ring`,
      );
    return next(input);
  },
  handleQuery(input, next) {
    if (firstUndecodable(input.args)) {
      count('query');
      return Promise.reject(new Error(UNDECODABLE_QUERY_MESSAGE));
    }
    return next(input);
  },
};

export const interceptors: WorkflowInterceptorsFactory = () => ({ inbound: [inbound] });
