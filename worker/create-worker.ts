// Builds a worker for the agent workflow. Used by the worker process, the demo and tests, so
// all three run the same code with the same options.
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { workflowsPath } from './bundle.js';

export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: ActivityDeps;
  /** A prebuilt bundle (tests, crash harness); otherwise the workflows are bundled here. */
  workflowBundle?: WorkflowBundleOption;
  maxConcurrentActivityTaskExecutions?: number;
  stickyTimeoutMs?: number;
}

export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
    activities: createActivities(options.activities),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions ?? 100,
    ...(options.stickyTimeoutMs ? { stickyQueueScheduleToStartTimeout: options.stickyTimeoutMs } : {}),
    // Let in-flight activities finish (or be abandoned quickly) on SIGTERM.
    shutdownGraceTime: '5 seconds',
  });
}
