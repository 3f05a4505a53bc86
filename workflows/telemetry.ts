// Where the agent loop lets telemetry look at it: one call per step of the loop, and nothing
// else. The loop stays free of tracing code: a worker without telemetry never installs an
// observer, and the call is a single comparison. With telemetry, the workflow interceptor
// module (workflows/telemetry-interceptors.ts) installs one per run; module state in a
// workflow bundle belongs to one run (the SDK gives each run its own module cache).
import type { Step } from './controller/index.js';

/** Sees each step the loop takes; must not throw, schedule anything or create promises. */
export interface StepObserver {
  step(step: Step): void;
}

let observer: StepObserver | undefined;

/** Called by the telemetry interceptor module, once per run, before the workflow starts. */
export function installStepObserver(o: StepObserver): void {
  observer = o;
}

/** The loop's one hook: what the run now holds and is about to do. */
export function observeStep(step: Step): void {
  if (observer === undefined) return;
  observer.step(step);
}
