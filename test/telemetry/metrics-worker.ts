// A worker process with telemetry as an operator turns it on: the Prometheus endpoint from
// AGENT_METRICS_ADDRESS, traces from OTEL_EXPORTER_OTLP_ENDPOINT. Its own process, because the
// runtime's telemetry is set once, before the first connection (a test file's runtime is not).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { agentTracingFromEnv, prometheusTelemetryFromEnv } from '../../worker/telemetry.js';
import { TEST_DIRECTORY } from '../support/keys.js';

const env = process.env;
const telemetryOptions = prometheusTelemetryFromEnv(env);
Runtime.install({ logger: new DefaultLogger('WARN'), ...(telemetryOptions ? { telemetryOptions } : {}) });
const tracing = agentTracingFromEnv(env);
const connection = await NativeConnection.connect({ address: env.TEMPORAL_ADDRESS });
const worker = await Worker.create({
  connection,
  namespace: env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: env.AGENT_TASK_QUEUE ?? 'telemetry',
  workflowBundle: { codePath: env.WORKFLOW_BUNDLE ?? '' },
  activities: createActivities({
    implementations,
    deps: { world: new WorldClient(env.WORLD_URL ?? '') },
    blobDir: join(tmpdir(), 'agent-test-blobs'),
    toolTimeoutMs: 800,
    approvers: TEST_DIRECTORY,
  }),
  ...(tracing ? { interceptors: { activity: tracing.activityInterceptors }, sinks: tracing.sinks } : {}),
});
// The test's stdin is this process's lifeline: when it closes, stop.
process.stdin.on('close', () => worker.shutdown());
process.stdin.resume();
const running = worker.run();
process.stdout.write('WORKER_READY\n');
await running;
await tracing?.shutdown();
await connection.close();
process.exit(0);
