// The bench's side of a scale-out worker (bench/scale-out-worker.ts): starts it as a child process
// with an IPC channel, waits until it polls, asks it for reports and stops it by its own pid.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../temporal-dev/paths.js';
import { WorkerReport, type BenchRequest } from './scale-out-protocol.js';

const script = fileURLToPath(new URL('./scale-out-worker.ts', import.meta.url));
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 20_000;

export type Report = Extract<WorkerReport, { type: 'report' }>;

export interface ScaleOutWorker {
  pid: number;
  report(): Promise<Report>;
  stop(): Promise<void>;
}

export interface ScaleOutWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  bundlePath: string;
}

export async function startScaleOutWorker(options: ScaleOutWorkerOptions): Promise<ScaleOutWorker> {
  const child = fork(script, [], {
    cwd: projectRoot,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: options.address,
      TEMPORAL_NAMESPACE: options.namespace,
      SCALE_OUT_TASK_QUEUE: options.taskQueue,
      WORKFLOW_BUNDLE: options.bundlePath,
    },
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waiting: ((r: Report) => void)[] = [];
  child.on('message', (raw: unknown) => {
    const message = WorkerReport.parse(raw);
    if (message.type === 'report') waiting.shift()?.(message);
  });
  await ready(child, exited, () => stderr);
  const request = (r: BenchRequest) => child.send(r);
  return {
    pid: child.pid ?? -1,
    report: () =>
      new Promise<Report>((resolve, reject) => {
        if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`scale-out worker ${child.pid} has exited:\n${stderr}`));
        waiting.push(resolve);
        request({ type: 'report' });
      }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      request({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

function ready(child: ChildProcess, exited: Promise<number | null>, stderr: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`scale-out worker did not become ready within ${READY_TIMEOUT_MS / 1_000} s:\n${stderr()}`));
    }, READY_TIMEOUT_MS);
    child.on('message', (raw: unknown) => {
      if (WorkerReport.safeParse(raw).data?.type !== 'ready') return;
      clearTimeout(timer);
      resolve();
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`scale-out worker exited (${code}) before it was ready:\n${stderr()}`));
    });
  });
}
