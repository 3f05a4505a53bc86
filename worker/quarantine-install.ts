// Where agentPlugin installs the quarantine (worker/quarantine-codec.ts and
// workflows/quarantine-interceptors.ts): the interceptor module into every bundle it makes, and the
// codec around the worker's data converter. The two only work together: a marker that meets no
// interceptor would reach the agent workflow's input parsing and fail the run rather than the
// task. So a worker given a prebuilt bundle without the module keeps the strict codecs (and says
// so once) instead of quarantining half-way.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Runtime, type BundleOptions, type ReplayWorkerOptions, type WorkerOptions } from '@temporalio/worker';
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

/** The worker's (or replay worker's) options with its codecs behind the quarantine, when its bundle has the interceptors. */
export function withQuarantine<T extends WorkerOptions | ReplayWorkerOptions>(options: T): T {
  if (!bundleCarriesQuarantine(options)) {
    Runtime.instance().logger.warn(
      'the workflow bundle was built without agentPlugin, so a payload this worker cannot decode still fails its workflow task: ' +
        'bundle with bundleWorkflows(path, { plugins: [agentPlugin(...)] }) to have such signals dropped and Updates refused',
    );
    return options;
  }
  return { ...options, dataConverter: quarantined(options.dataConverter) };
}
