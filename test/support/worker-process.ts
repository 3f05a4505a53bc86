// The example worker as a child process, for crash tests and the chaos run: a real OS process with its
// own pid that a test can SIGKILL at an exact moment and replace with a fresh one.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../../temporal-dev/paths.js';
import { PATIENCE_MS } from './wait.js';

/** The examples' worker process: the example domains against the simulated world. */
export const EXAMPLES_WORKER = fileURLToPath(new URL('../../domains/worker.ts', import.meta.url));

export interface WorkerProcessOptions {
  /** The worker script to run (it calls runWorkerProcess with your implementations). */
  script: string;
  temporalAddress: string;
  /** TEMPORAL_NAMESPACE for the worker; unset, it inherits the environment's (or `default`). */
  namespace?: string;
  taskQueue: string;
  worldUrl: string;
  /** A prebuilt workflow bundle, so a restart takes a second instead of a re-bundle. */
  workflowBundlePath: string;
  toolTimeoutMs?: number;
  /** How long a dead worker's sticky queue holds a workflow task before others may take it. */
  stickyTimeoutMs?: number;
  /** The approver directory file the worker trusts (AGENT_APPROVERS_FILE). */
  approversFile?: string;
  /** More of the worker's environment (a test process runs many files: never edit its own). */
  env?: Record<string, string>;
}

export interface WorkerProcess {
  pid: number;
  exited: Promise<number | null>;
  /** SIGKILL: no shutdown, no goodbye, exactly what a crash looks like. */
  kill(): Promise<void>;
  /** SIGTERM and wait: a graceful stop. */
  stop(): Promise<void>;
}

export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', options.script], {
    cwd: projectRoot,
    // stdin stays open as a lifeline: if the test process dies, the worker notices and exits.
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: options.temporalAddress,
      AGENT_TASK_QUEUE: options.taskQueue,
      WORLD_URL: options.worldUrl,
      WORKFLOW_BUNDLE: options.workflowBundlePath,
      TOOL_TIMEOUT_MS: String(options.toolTimeoutMs ?? 1_500),
      STICKY_TIMEOUT_MS: String(options.stickyTimeoutMs ?? 1_000),
      EXIT_WITH_PARENT: '1',
      ...(options.approversFile ? { AGENT_APPROVERS_FILE: options.approversFile } : {}),
      ...(options.namespace ? { TEMPORAL_NAMESPACE: options.namespace } : {}),
      ...options.env,
    },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
  await waitForReady(child, exited, () => stderr);
  const pid = child.pid ?? -1;
  const signalAndWait = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { pid, exited, kill: () => signalAndWait('SIGKILL'), stop: () => signalAndWait('SIGTERM') };
}

function waitForReady(child: ChildProcess, exited: Promise<number | null>, stderr: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker did not become ready within ${PATIENCE_MS / 1000} s:\n${stderr()}`));
    }, PATIENCE_MS);
    let seen = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      seen += chunk;
      if (seen.includes('WORKER_READY')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before it was ready:\n${stderr()}`));
    });
  });
}
