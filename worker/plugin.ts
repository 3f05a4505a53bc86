// The engine as a Temporal worker plugin, for a team that already has its own Worker.create:
//
//   Worker.create({ ...theirOptions, plugins: [agentPlugin({ implementations, deps, approvers, blobDir })] })
//
// It brings what an agent worker needs and nothing it does not own: the engine's activities
// (added to theirs; a name both define is refused, never silently replaced), the engine's
// bundling (preloaded modules, the webpack hook) for a worker that bundles its workflows
// itself, the shared-queue check and the identity that check reads, and a default task queue.
// Their data converter, interceptors, tuner, rate limits (maxTaskQueueActivitiesPerSecond...)
// and other plugins pass through untouched; codecs and interceptors given to the plugin
// (payloadCodecs, interceptors, telemetry) are added after theirs.
import { disconnectMcpSources } from '../activities/mcp/source.js';
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import type { ClientOptions, ClientPlugin } from '@temporalio/client';
import { SimplePlugin } from '@temporalio/plugin';
import {
  NativeConnection,
  Runtime,
  type BundleOptions,
  type BundlerPlugin,
  type InjectedSinks,
  type ReplayWorkerOptions,
  type Worker,
  type WorkerInterceptors,
  type WorkerOptions,
  type WorkerPlugin,
} from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { withEngineBundling } from './bundle.js';
import { taskQueueFor } from './connection.js';
import { DeploymentConfigError, workerDeploymentOptions, type AgentDeployment } from './deployment.js';
import { agentWorkerIdentity, domainsOfIdentity, queueNeighbours, TaskQueueSharedError, unknownNeighboursWarning } from './shared-queue.js';

export const AGENT_PLUGIN_NAME = 'bounded-react-temporal';

/** What a tracing integration (OpenTelemetry, issue 24) hands the worker. */
export interface AgentTelemetry {
  /**
   * Appended after the worker's own: activity and nexus interceptor factories, client
   * interceptors, and workflow interceptor modules. Workflow modules are workflow code: a worker
   * that bundles (workflowsPath) includes them; a prebuilt bundle must be made with this plugin
   * (`bundleWorkflows(path, { plugins: [plugin] })`).
   */
  interceptors?: WorkerInterceptors;
  /** Sinks the workflow interceptors report through (e.g. a span exporter); added to the worker's. */
  sinks?: InjectedSinks<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the SDK's own type
  /** Wraps the worker's run, e.g. to flush a span processor when the worker stops. */
  runContext?: (next: () => Promise<void>) => Promise<void>;
}

/** What agentPlugin takes: the implementations, their deps, the approver directory, where big outputs go, models, spend, payload codecs and telemetry. */
export interface AgentPluginOptions extends ActivityDeps {
  /**
   * When the queue is already polled by an agent worker of other domains: `refuse` (default,
   * TaskQueueSharedError from Worker.create) or `warn` (you mean it, e.g. a rolling deploy that
   * adds a domain).
   */
  sharedQueue?: 'refuse' | 'warn';
  /**
   * Payload codecs (e.g. encryption) applied after the worker's own: on the way out theirs
   * encode first and these last; on the way in these decode first. A client of these runs needs
   * the same codecs in the same order (AgentClient.connect({ dataConverter })).
   */
  payloadCodecs?: PayloadCodec[];
  /**
   * Converter paths that replace the worker's (payloadConverterPath, failureConverterPath);
   * its payloadCodecs are added like `payloadCodecs`, never replacing the worker's.
   */
  dataConverter?: DataConverter;
  /** Worker interceptors appended after the worker's own (activity, workflowModules, nexus, client). */
  interceptors?: WorkerInterceptors;
  telemetry?: AgentTelemetry;
  /**
   * Run under Worker Versioning as this Worker Deployment Version (default: off). Runs are
   * pinned to the build that started them unless `behavior` says otherwise, and move to a new
   * current build at the engine's continue-as-new (worker/deployment.ts, docs/operations.md).
   */
  deployment?: AgentDeployment;
}

/** Thrown by Worker.create when the worker's own activities use a name the engine's use. */
export class ActivityNameTakenError extends Error {
  constructor(readonly names: readonly string[]) {
    super(
      `the worker's activities ${names.map((n) => `'${n}'`).join(', ')} have the names of the agent engine's own activities, which agentPlugin registers: ` +
        `rename yours (and if you pass createActivities(...) yourself, drop it: the plugin brings them)`,
    );
    this.name = 'ActivityNameTakenError';
  }
}

/**
 * The merging (activities appended, data converter, interceptors, run context) is SimplePlugin's;
 * it is held rather than extended because the shared-queue check must ask the server before the
 * worker starts, which SimplePlugin's synchronous configureWorker cannot.
 */
/** Workers in this process that run with the agent plugin and have not stopped. */
let runningWorkers = 0;

export class AgentPlugin implements WorkerPlugin, BundlerPlugin, ClientPlugin {
  readonly name = AGENT_PLUGIN_NAME;
  private readonly simple: SimplePlugin;
  private readonly agent: AgentPluginOptions;
  private readonly domainNames: string[];
  private readonly engineActivityNames: string[];
  private readonly deployment: WorkerOptions['workerDeploymentOptions'];

  constructor(options: AgentPluginOptions) {
    const { sharedQueue: _s, payloadCodecs: _p, dataConverter: _d, interceptors: _i, telemetry, deployment, ...deps } = options;
    // Checked here too: a deployment with a typo fails where it is given.
    this.deployment = deployment ? workerDeploymentOptions(deployment) : undefined;
    // Built here, not at Worker.create: a malformed approver directory fails where it is given.
    const activities = createActivities(deps);
    const interceptors = mergeInterceptors(options.interceptors, telemetry?.interceptors);
    this.simple = new SimplePlugin({
      name: AGENT_PLUGIN_NAME,
      activities,
      dataConverter: (existing) => withCodecs(existing, options),
      ...(interceptors ? { workerInterceptors: interceptors } : {}),
      ...(telemetry?.runContext ? { runContext: telemetry.runContext } : {}),
    });
    this.agent = options;
    this.domainNames = options.implementations.map((i) => i.domain.name);
    this.engineActivityNames = Object.keys(activities);
  }

  async configureWorker(options: WorkerOptions): Promise<WorkerOptions> {
    const taken = Object.keys(options.activities ?? {}).filter((name) => this.engineActivityNames.includes(name));
    if (taken.length) throw new ActivityNameTakenError(taken);
    const taskQueue = options.taskQueue || taskQueueFor(this.domainNames);
    if (this.deployment && options.workerDeploymentOptions) {
      throw new DeploymentConfigError('the worker is given workerDeploymentOptions and agentPlugin a deployment: give one of them');
    }
    await this.checkQueue(options.connection, options.namespace ?? 'default', taskQueue);
    return this.simple.configureWorker({
      ...options,
      taskQueue,
      ...(this.deployment ? { workerDeploymentOptions: this.deployment } : {}),
      identity: tagIdentity(options.identity, this.domainNames),
      ...withSinks(options.sinks, this.agent.telemetry?.sinks),
    });
  }

  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return this.simple.configureReplayWorker({ ...options, ...withSinks(options.sinks, this.agent.telemetry?.sinks) });
  }

  async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    runningWorkers++;
    try {
      await this.simple.runWorker(worker, next);
    } finally {
      // MCP connections are per process, shared by its workers: ended with the last of them.
      if (--runningWorkers === 0) await disconnectMcpSources();
    }
  }

  /** Called by the bundler of a worker given workflowsPath, and by bundleWorkflows({ plugins }). */
  configureBundler(options: BundleOptions): BundleOptions {
    return withEngineBundling(this.simple.configureBundler(options));
  }

  /** On a Client (`new Client({ plugins: [plugin] })`): the same codecs, so it reads these runs. */
  configureClient(options: Omit<ClientOptions, 'plugins'>): Omit<ClientOptions, 'plugins'> {
    return this.simple.configureClient(options);
  }

  private async checkQueue(given: NativeConnection | undefined, namespace: string, taskQueue: string): Promise<void> {
    const logger = Runtime.instance().logger;
    let neighbours;
    // Without a connection, Worker.create connects to its default address: ask the same one.
    const connection = given ?? (await NativeConnection.connect().catch(() => undefined));
    try {
      if (!connection) throw new Error('no connection');
      neighbours = await queueNeighbours(connection, namespace, taskQueue, this.domainNames);
    } catch (err) {
      // A server or key that may not describe queues must not keep a worker from starting.
      logger.warn(`could not check who else polls task queue ${taskQueue}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      return;
    } finally {
      if (!given) await connection?.close();
    }
    if (neighbours.conflicting.length) {
      const error = new TaskQueueSharedError(taskQueue, this.domainNames, neighbours.conflicting);
      if ((this.agent.sharedQueue ?? 'refuse') === 'refuse') throw error;
      logger.warn(error.message);
    }
    if (neighbours.unknown.length) logger.warn(unknownNeighboursWarning(taskQueue, neighbours.unknown));
  }
}

/**
 * The engine for your own Worker.create: it registers the engine's activities (refusing a name
 * one of yours already has), bundles its workflow code, and checks that no worker of other
 * domains polls the same task queue.
 *
 * @example
 * ```ts
 * const worker = await Worker.create({
 *   connection, taskQueue: taskQueueFor([orders]), workflowsPath,
 *   plugins: [agentPlugin({ implementations: [ordersImplementation], deps, approvers, blobDir: './.blobs' })],
 * });
 * ```
 */
export function agentPlugin(options: AgentPluginOptions): AgentPlugin {
  return new AgentPlugin(options);
}

/**
 * The worker's identity with the domains it serves, which the shared-queue check of other
 * agent workers reads: Temporal's default (`pid@host`) or the team's own, tagged.
 */
function tagIdentity(identity: string | undefined, domainNames: readonly string[]): string {
  if (!identity) return agentWorkerIdentity(domainNames);
  if (domainsOfIdentity(identity)) return identity;
  const tag = / \[agents: [^\]]*\]$/.exec(agentWorkerIdentity(domainNames))?.[0] ?? '';
  return `${identity}${tag}`;
}

function withCodecs(existing: DataConverter | undefined, options: AgentPluginOptions): DataConverter {
  const added = [...(options.dataConverter?.payloadCodecs ?? []), ...(options.payloadCodecs ?? [])];
  const merged: DataConverter = { ...existing, ...options.dataConverter };
  const codecs = [...(existing?.payloadCodecs ?? []), ...added];
  if (codecs.length) merged.payloadCodecs = codecs;
  else delete merged.payloadCodecs;
  return merged;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's own type
function withSinks(existing: InjectedSinks<any> | undefined, added: InjectedSinks<any> | undefined): { sinks?: InjectedSinks<any> } {
  if (!added) return existing ? { sinks: existing } : {};
  return { sinks: { ...existing, ...added } };
}

function mergeInterceptors(a: WorkerInterceptors | undefined, b: WorkerInterceptors | undefined): WorkerInterceptors | undefined {
  if (!a || !b) return a ?? b;
  const concat = <T>(x: T[] | undefined, y: T[] | undefined): T[] | undefined => (x || y ? [...(x ?? []), ...(y ?? [])] : undefined);
  const workflow = concat(asArray(a.client?.workflow), asArray(b.client?.workflow));
  const schedule = concat(a.client?.schedule, b.client?.schedule);
  const client = workflow || schedule ? { ...(workflow ? { workflow } : {}), ...(schedule ? { schedule } : {}) } : undefined;
  const merged: WorkerInterceptors = {};
  const activity = concat(a.activity, b.activity);
  const nexus = concat(a.nexus, b.nexus);
  const workflowModules = concat(a.workflowModules, b.workflowModules);
  if (activity) merged.activity = activity;
  if (nexus) merged.nexus = nexus;
  if (workflowModules) merged.workflowModules = workflowModules;
  if (client) merged.client = client;
  return merged;
}

type ClientWorkflowInterceptors = NonNullable<NonNullable<WorkerInterceptors['client']>['workflow']>;
function asArray(x: ClientWorkflowInterceptors | undefined): Extract<ClientWorkflowInterceptors, unknown[]> | undefined {
  if (x === undefined || Array.isArray(x)) return x;
  throw new Error('agentPlugin takes client workflow interceptors as an array (the SDK plugin refuses the old object form)');
}
