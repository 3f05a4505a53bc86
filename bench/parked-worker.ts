// The worker process of the bench's `parked` section: the engine's own worker (createAgentWorker
// with its defaults, the synthetic domain, an approver directory from AGENT_APPROVERS_FILE) in a
// process of its own, so its memory is the worker's alone and not the bench's client as well.
// It reports its memory on stdout once a second and Core's metrics (the sticky cache's size
// and evictions) on a Prometheus endpoint, which the bench reads (bench/parked-process.ts).
//
// Environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, AGENT_TASK_QUEUE, AGENT_APPROVERS_FILE,
// PARKED_METRICS_ADDRESS (host:port), PARKED_WORKFLOW_BUNDLE (the bench bundles once, as a
// production image would: bundling here would leave webpack's memory in the figures) and
// PARKED_MAX_CACHED (optional: overrides the cache size).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { syntheticImplementation } from '../domains/synthetic/tools.js';
import { loadApproverDirectory } from '../worker/approvers.js';
import { createAgentWorker } from '../worker/create-worker.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`parked-worker: ${name} is not set\n`);
    process.exit(2);
  }
  return value;
};

// The bench keeps stdin open: when it dies, so does this worker (no orphan on a loaded machine).
process.stdin.on('close', () => process.exit(1));
process.stdin.resume();

Runtime.install({
  logger: new DefaultLogger('WARN'),
  telemetryOptions: { metrics: { prometheus: { bindAddress: env('PARKED_METRICS_ADDRESS') } } },
});
const connection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
const cacheOverride = process.env.PARKED_MAX_CACHED ? Number(process.env.PARKED_MAX_CACHED) : undefined;
const worker = await createAgentWorker({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: env('AGENT_TASK_QUEUE'),
  workflowBundle: { codePath: env('PARKED_WORKFLOW_BUNDLE') },
  implementations: [syntheticImplementation],
  blobDir: join(tmpdir(), 'agent-bench-parked-blobs'),
  toolTimeoutMs: 5_000,
  approvers: loadApproverDirectory(env('AGENT_APPROVERS_FILE')),
  // Only when asked: the section measures the engine's default, which is the SDK's (sized from the heap limit).
  ...(cacheOverride ? { workerOptions: { maxCachedWorkflows: cacheOverride } } : {}),
});

const memory = () => {
  const m = process.memoryUsage();
  return { at: Date.now(), rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external };
};
process.stdout.write(
  `PARKED_READY ${JSON.stringify({
    pid: process.pid,
    maxCachedWorkflows: worker.options.maxCachedWorkflows,
    cacheOverridden: cacheOverride !== undefined,
    heapSizeLimitMiB: Math.round(getHeapStatistics().heap_size_limit / 1024 / 1024),
    memory: memory(),
  })}\n`,
);
const timer = setInterval(() => process.stdout.write(`PARKED_MEMORY ${JSON.stringify(memory())}\n`), 1_000);
process.once('SIGTERM', () => worker.shutdown());
await worker.run();
clearInterval(timer);
await connection.close();
process.exit(0);
