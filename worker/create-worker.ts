// Builds a worker for the agent workflow from what you give it: your workflows module (which
// exports `agentWorkflow = agentWorkflowFor([...your domains])`) or a prebuilt bundle of it,
// the implementations of those domains, and the dependencies they need. Used by worker
// processes, the demo and tests, so all of them run the same code with the same options.
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { BUNDLER_OPTIONS } from './bundle.js';
import { connectConfig, TASK_QUEUE } from './connection.js';

export interface AgentWorkerOptions extends ActivityDeps {
  /** Default: connect as the environment says (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, a profile...). */
  connection?: NativeConnection;
  namespace?: string;
  /** Default: AGENT_TASK_QUEUE, else `agent-runs`. */
  taskQueue?: string;
  /** Your workflows module: bundled here (takes seconds). */
  workflowsPath?: string;
  /** A prebuilt bundle (tests, crash harness, production images) instead of workflowsPath. */
  workflowBundle?: WorkflowBundleOption;
  maxConcurrentActivityTaskExecutions?: number;
  stickyTimeoutMs?: number;
}

export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const { connection, namespace, taskQueue, workflowsPath, workflowBundle, maxConcurrentActivityTaskExecutions, stickyTimeoutMs, ...deps } = options;
  if (!workflowBundle && !workflowsPath) throw new Error('createAgentWorker needs workflowsPath (your workflows module) or a workflowBundle');
  const fromEnv = connection ? undefined : connectConfig();
  return Worker.create({
    connection: connection ?? (await NativeConnection.connect(fromEnv?.connectionOptions)),
    namespace: namespace ?? fromEnv?.namespace ?? 'default',
    taskQueue: taskQueue ?? TASK_QUEUE,
    ...(workflowBundle ? { workflowBundle } : { workflowsPath, bundlerOptions: BUNDLER_OPTIONS }),
    activities: createActivities(deps),
    maxConcurrentActivityTaskExecutions: maxConcurrentActivityTaskExecutions ?? 100,
    ...(stickyTimeoutMs ? { stickyQueueScheduleToStartTimeout: stickyTimeoutMs } : {}),
    // Let in-flight activities finish (or be abandoned quickly) on SIGTERM.
    shutdownGraceTime: '5 seconds',
  });
}
