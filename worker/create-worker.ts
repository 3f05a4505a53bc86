// Builds a worker for the agent workflow from what you give it: your workflows module (which
// exports `agentWorkflow = agentWorkflowFor([...your domains])`) or a prebuilt bundle of it,
// the implementations of those domains, and the dependencies they need. Used by worker
// processes, the demo and tests, so all of them run the same code with the same options.
// A convenience over the worker plugin (worker/plugin.ts), which carries the engine's
// activities, bundling and shared-queue check; this adds a connection from the environment
// and the engine's defaults for the Worker.create options a team would otherwise choose.
// Its task queue defaults to one named after the domains it serves, and it refuses a queue
// that a worker of other domains already polls (worker/shared-queue.ts). Of the rest of the
// environment it reads one variable, AGENT_PAYLOAD_KEYS, and only when nothing else gave it a
// codec: an operator who sets it expects every payload sealed, and a worker that wrote them in
// clear because a script forgot a spread would fail silently and in the worst direction. The
// rest (models, tracing, spend...) is turned into options in one place, workerOptionsFromEnv
// (worker/env-options.ts), which a script spreads in.
import { NativeConnection, Runtime, Worker, type RuntimeOptions, type WorkerOptions, type WorkerPlugin, type WorkflowBundleOption } from '@temporalio/worker';
import { AgentWorkerError } from '../activities/worker-error.js';
import { connectConfig, taskQueueFor } from './connection.js';
import type { OptionNames } from '../workflows/option-names.js';
import { AGENT_CODEC_PLUGIN_NAME, agentCodecPlugin } from './codec-plugin.js';
import { loadPayloadCodec } from './payload-codec.js';
import { agentPlugin, checkPluginOptions, type AgentPluginOptions } from './plugin.js';

/** The process's Temporal runtime was made before createAgentWorker could install the one it was given. */
export class RuntimeInstalledError extends AgentWorkerError {
  static override readonly errorName: string = 'RuntimeInstalledError';
  constructor(cause: unknown) {
    super(
      'createAgentWorker was given runtime options (a log level, a metrics endpoint), but this process already has a Temporal runtime: ' +
        'install them with Runtime.install before anything connects, or create the worker before other connections',
      { cause },
    );
  }
}

/** What createAgentWorker takes: the plugin's options (implementations, deps, approvers, blobDir, models...) and the worker's own (connection, task queue, workflows). */
export interface AgentWorkerOptions extends AgentPluginOptions {
  /** Default: connect as the environment says (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, a profile...). */
  connection?: NativeConnection;
  namespace?: string;
  /** Default: AGENT_TASK_QUEUE, else `agents-<the implemented domains, sorted>` (taskQueueFor). */
  taskQueue?: string;
  /** Your workflows module: bundled here (takes seconds). */
  workflowsPath?: string;
  /** A prebuilt bundle (tests, crash harness, production images) instead of workflowsPath. */
  workflowBundle?: WorkflowBundleOption;
  maxConcurrentActivityTaskExecutions?: number;
  stickyTimeoutMs?: number;
  /**
   * Integrations listed beside the engine, in order: agentTracingPlugin, agentCodecPlugin,
   * agentSpendPlugin, your own. The agent plugin is added after them.
   */
  plugins?: WorkerPlugin[];
  /**
   * Runtime options (a logger, `telemetryOptions` with a Prometheus endpoint), installed before
   * the worker connects. A process has one runtime, made at its first connection: give these
   * only where nothing has connected yet (RuntimeInstalledError otherwise).
   */
  runtime?: RuntimeOptions;
  /**
   * Any other Worker.create option, passed through untouched: a tuner, task-queue rate limits
   * (maxTaskQueueActivitiesPerSecond), your data converter, interceptors, sinks. The options
   * above win over the same fields here.
   */
  workerOptions?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'workflowsPath' | 'workflowBundle' | 'plugins'>>;
}

/** The options createAgentWorker takes beside agentPlugin's (the compiler holds this to AgentWorkerOptions). */
const WORKER_OWN_OPTIONS: OptionNames<Omit<AgentWorkerOptions, keyof AgentPluginOptions>> = {
  connection: true,
  namespace: true,
  taskQueue: true,
  workflowsPath: true,
  workflowBundle: true,
  maxConcurrentActivityTaskExecutions: true,
  stickyTimeoutMs: true,
  plugins: true,
  runtime: true,
  workerOptions: true,
};

/**
 * A Temporal worker with the engine in it: your domains' implementations, your dependencies,
 * your approver directory; the workflows module is bundled here. The task queue is derived from
 * the domains it serves (`agents-<names, sorted>`), the same one AgentClient.connect derives.
 * The environment's settings (OPENAI_*, AGENT_MODELS, OTEL_*, AGENT_METRICS_ADDRESS...) come in
 * by spreading workerOptionsFromEnv() first; what follows the spread wins.
 *
 * @example
 * ```ts
 * const worker = await createAgentWorker({
 *   ...(await workerOptionsFromEnv()),
 *   workflowsPath: fileURLToPath(new URL('./workflows.js', import.meta.url)),
 *   implementations: [implement(orders).with({ tools, readbacks, probe })],
 *   deps: { book },
 *   blobDir: './.blobs',
 *   approvers: loadApproverDirectory(process.env.AGENT_APPROVERS_FILE ?? 'approvers.json'),
 * });
 * process.on('SIGTERM', () => worker.shutdown());
 * await worker.run();
 * ```
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  // An option a release removed, or a misspelt one, is refused here rather than ignored.
  checkPluginOptions('createAgentWorker', options, WORKER_OWN_OPTIONS);
  const {
    connection,
    namespace,
    taskQueue,
    workflowsPath,
    workflowBundle,
    maxConcurrentActivityTaskExecutions,
    stickyTimeoutMs,
    plugins,
    runtime,
    workerOptions,
    ...pluginOptions
  } = options;
  if (!workflowBundle && !workflowsPath) throw new Error('createAgentWorker needs workflowsPath (your workflows module) or a workflowBundle');
  const plugin = agentPlugin(pluginOptions);
  const encryption = codecFromEnv(plugins, workerOptions, connection);
  if (runtime) {
    try {
      Runtime.install(runtime);
    } catch (err) {
      throw new RuntimeInstalledError(err);
    }
  }
  const fromEnv = connection ? undefined : connectConfig();
  const conn = connection ?? (await NativeConnection.connect(fromEnv?.connectionOptions));
  try {
    return await Worker.create({
      // Let in-flight activities finish (or be abandoned quickly) on SIGTERM.
      shutdownGraceTime: '5 seconds',
      maxConcurrentActivityTaskExecutions: 100,
      ...workerOptions,
      connection: conn,
      namespace: namespace ?? fromEnv?.namespace ?? 'default',
      taskQueue: taskQueue ?? taskQueueFor(pluginOptions.implementations.map((i) => i.domain.name)),
      ...(workflowBundle ? { workflowBundle } : { workflowsPath }),
      ...(maxConcurrentActivityTaskExecutions ? { maxConcurrentActivityTaskExecutions } : {}),
      ...(stickyTimeoutMs ? { stickyQueueScheduleToStartTimeout: stickyTimeoutMs } : {}),
      plugins: [...encryption, ...(plugins ?? []), plugin],
    });
  } catch (err) {
    if (!connection) await conn.close();
    throw err;
  }
}

/**
 * The codec plugin AGENT_PAYLOAD_KEYS asks for, when the worker was given no codec of any kind
 * (agentCodecPlugin, as workerOptionsFromEnv adds it, or a data converter with codecs of the
 * team's own). A ring that cannot be read throws PayloadKeyRingError: starting in clear when
 * encryption was asked for would be the worse failure.
 */
function codecFromEnv(
  plugins: WorkerPlugin[] | undefined,
  workerOptions: AgentWorkerOptions['workerOptions'],
  connection: NativeConnection | undefined,
): WorkerPlugin[] {
  // The SDK adds the connection's plugins to the worker's: one listed there counts too.
  if ([...(plugins ?? []), ...(connection?.plugins ?? [])].some((p) => p.name === AGENT_CODEC_PLUGIN_NAME)) return [];
  if (workerOptions?.dataConverter?.payloadCodecs?.length) return [];
  const codec = loadPayloadCodec(process.env);
  return codec ? [agentCodecPlugin([codec])] : [];
}
