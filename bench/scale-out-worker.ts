// One worker process of the bench's `scale-out` section: the same agent worker the in-process
// harness runs (bench bundle, the synthetic domain's real activities, the bench's worker options),
// alone in a process so that several of them can share one task queue the way a team's fleet
// does. It stamps every `propose` call (the turn clock) and hands the stamps, its CPU time and its
// memory to the bench over the IPC channel on request (bench/scale-out-process.ts).
//
// Environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, SCALE_OUT_TASK_QUEUE, WORKFLOW_BUNDLE.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import type { ProposeInput } from '../activities/model/index.js';
import { syntheticImplementation } from '../domains/synthetic/tools.js';
import { WORKER_OPTIONS } from './harness.js';
import { BenchRequest, type WorkerReport } from './scale-out-protocol.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`scale-out-worker: ${name} is not set\n`);
    process.exit(2);
  }
  return value;
};
const send = (message: WorkerReport) => process.send?.(message);
if (!process.send) {
  process.stderr.write('scale-out-worker: start me from the bench (an IPC channel is needed)\n');
  process.exit(2);
}
// The bench's IPC channel is the lifeline: when the bench dies, so does this worker.
process.on('disconnect', () => process.exit(1));

Runtime.install({ logger: new DefaultLogger('WARN') });
const connection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
const agent = createActivities({ implementations: [syntheticImplementation], blobDir: join(tmpdir(), 'agent-bench-blobs') });
let stamps: Record<string, number[]> = {};
let peakRss = process.memoryUsage().rss;
setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100).unref();

const worker = await Worker.create({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: env('SCALE_OUT_TASK_QUEUE'),
  workflowBundle: { codePath: env('WORKFLOW_BUNDLE') },
  activities: {
    ...agent,
    async propose(input: ProposeInput) {
      (stamps[input.caseId] ??= []).push(Date.now());
      return agent.propose(input);
    },
  },
  ...WORKER_OPTIONS,
  shutdownGraceTime: '5 seconds',
});

process.on('message', (raw: unknown) => {
  const request = BenchRequest.parse(raw);
  if (request.type === 'stop') {
    worker.shutdown();
    return;
  }
  // A report hands over what was gathered since the last one, and starts afresh.
  const cpu = process.cpuUsage();
  send({ type: 'report', pid: process.pid, cpuMs: (cpu.user + cpu.system) / 1_000, rssBytes: process.memoryUsage().rss, peakRssBytes: peakRss, stamps });
  stamps = {};
  peakRss = process.memoryUsage().rss;
});

const running = worker.run();
send({ type: 'ready', pid: process.pid });
await running;
await connection.close();
process.exit(0);
