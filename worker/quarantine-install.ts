// Where agentPlugin installs the quarantine (worker/quarantine-codec.ts and
// workflows/quarantine-interceptors.ts): the interceptor module into every bundle it makes, and the
// codec around the worker's data converter. The two only work together: a marker that meets no
// interceptor would reach the agent workflow's input parsing and fail the run rather than the
// task. So a worker given a prebuilt bundle without the module does not start
// (QuarantineMissingError), unless the team says by name that it runs without the quarantine
// (`agentPlugin({ quarantine: 'off' })`): then it keeps the strict codecs, and says so.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Runtime, type BundleOptions, type ReplayWorkerOptions, type WorkerOptions } from '@temporalio/worker';
import { AgentWorkerError } from '../activities/worker-error.js';
import { QUARANTINE_INTERCEPTORS_ID } from '../workflows/quarantine-interceptors.js';
import { quarantined } from './quarantine-codec.js';

/** The workflow interceptor module, resolved next to this file (sources or the built package). */
export const QUARANTINE_WORKFLOW_MODULE = fileURLToPath(new URL('../workflows/quarantine-interceptors.js', import.meta.url));

/** The bundler's options with the quarantine interceptors added (once). */
export function withQuarantineModule(options: BundleOptions): BundleOptions {
  return { ...options, workflowInterceptorModules: [...new Set([...(options.workflowInterceptorModules ?? []), QUARANTINE_WORKFLOW_MODULE])] };
}

type BundleSource = Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'>;

/**
 * Whether the workflow code this worker will run carries the interceptors: a bundle made here
 * (workflowsPath, through the plugin's bundler hook) does; a prebuilt one is looked into.
 */
export function bundleCarriesQuarantine(options: BundleSource): boolean {
  const bundle = options.workflowBundle;
  if (!bundle) return true;
  try {
    const code = 'code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8');
    return code.includes(QUARANTINE_INTERCEPTORS_ID);
  } catch {
    // Unreadable here means unreadable for Worker.create too, which will say so itself.
    return false;
  }
}

/** A worker's prebuilt bundle lacks the quarantine's interceptors, and nobody said to run without them. */
export class QuarantineMissingError extends AgentWorkerError {
  static override readonly errorName: string = 'QuarantineMissingError';
  constructor() {
    super(
      'the workflow bundle was built without agentPlugin, so a payload this worker cannot decode (a signal or Update from anyone who reaches the frontend) ' +
        "would fail the run's workflow tasks until someone intervenes: bundle with bundleWorkflows(path, { plugins: [agentPlugin(...)] }) " +
        "(or the engine's agentBundling), or accept that by name with agentPlugin({ quarantine: 'off' })",
    );
  }
}

/**
 * The worker's (or replay worker's) options with its codecs behind the quarantine. A bundle
 * without the interceptors is refused, unless `quarantine` is `'off'` (a replay worker only
 * replays, and is never refused).
 */
export function withQuarantine<T extends WorkerOptions | ReplayWorkerOptions>(options: T, quarantine: 'required' | 'off' = 'off'): T {
  if (!bundleCarriesQuarantine(options)) {
    if (quarantine === 'required') throw new QuarantineMissingError();
    Runtime.instance().logger.warn(
      "the workflow bundle was built without agentPlugin and the quarantine is 'off': a payload this worker cannot decode fails its workflow task",
    );
    return options;
  }
  return { ...options, dataConverter: quarantined(options.dataConverter) };
}
