// `npm run worker`: a long-running worker process. Configuration comes from the environment
// only, so the same command serves the dev server, a cluster or Temporal Cloud.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { connectConfig, TASK_QUEUE } from './connection.js';
import { createAgentWorker } from './create-worker.js';
import { openAiAdapterFromEnv } from '../activities/model/openai-config.js';
import { loadApproverDirectory } from './approvers.js';

Runtime.install({ logger: new DefaultLogger((process.env.WORKER_LOG_LEVEL as 'WARN' | undefined) ?? 'WARN') });

// Started by a test or the chaos run: leave no orphan if that parent dies without stopping us.
if (process.env.EXIT_WITH_PARENT === '1') {
  process.stdin.on('close', () => process.exit(1));
  process.stdin.resume();
}

const worldUrl = process.env.WORLD_URL;
if (!worldUrl) {
  process.stderr.write('worker: set WORLD_URL to the systems of record (npm run world prints it)\n');
  process.exit(2);
}

const { connectionOptions, namespace } = connectConfig();
const connection = await NativeConnection.connect(connectionOptions);
const worker = await createAgentWorker({
  connection,
  namespace,
  taskQueue: TASK_QUEUE,
  ...(process.env.STICKY_TIMEOUT_MS ? { stickyTimeoutMs: Number(process.env.STICKY_TIMEOUT_MS) } : {}),
  ...(process.env.WORKFLOW_BUNDLE ? { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE } } : {}),
  activities: {
    worldUrl,
    blobDir: process.env.BLOB_DIR ?? join(tmpdir(), 'agent-blobs'),
    toolTimeoutMs: Number(process.env.TOOL_TIMEOUT_MS ?? 5_000),
    models: { ...openAiAdapterFromEnv() },
    approvers: loadApproverDirectory(process.env.AGENT_APPROVERS_FILE),
  },
});
process.stdout.write(`WORKER_READY pid=${process.pid} taskQueue=${TASK_QUEUE} address=${connectionOptions.address}\n`);
await worker.run();
await connection.close();
// The stdin lifeline above would keep the process alive after a graceful shutdown.
process.exit(0);
