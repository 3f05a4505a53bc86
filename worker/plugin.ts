// The engine as a Temporal worker plugin, for a team that already has its own Worker.create:
//
//   Worker.create({ ...theirOptions, plugins: [agentPlugin({ implementations, deps, approvers, blobDir })] })
//
// It brings what an agent worker needs and nothing it does not own: the engine's activities
// (added to theirs; a name both define is refused, never silently replaced), the engine's
// bundling (preloaded modules, the webpack hook) for a worker that bundles its workflows
// itself, the shared-queue check and the identity that check reads, and a default task queue.
// Their data converter (its codecs put behind the engine's quarantine, quarantine-install.ts),
// interceptors, tuner, rate limits (maxTaskQueueActivitiesPerSecond...) and other plugins pass
// through untouched. Tracing, payload codecs and spend are integrations
// of their own (telemetry-plugin.ts, codec-plugin.ts, spend-plugin.ts), listed beside this one.
import { disconnectMcpSources } from '../activities/mcp/source.js';
import { SimplePlugin } from '@temporalio/plugin';
import {
  NativeConnection,
  Runtime,
  type BundleOptions,
  type BundlerPlugin,
  type ReplayWorkerOptions,
  type Worker,
  type WorkerOptions,
  type WorkerPlugin,
} from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { AgentWorkerError } from '../activities/worker-error.js';
import { refusedOption, type OptionNames, type RefusedOption } from '../workflows/option-names.js';
import { withEngineBundling } from './bundle.js';
import { taskQueueFor } from './connection.js';
import { DeploymentConfigError, workerDeploymentOptions, type AgentDeployment } from './deployment.js';
import { withQuarantine, withQuarantineModule } from './quarantine-install.js';
import { agentWorkerIdentity, domainsOfIdentity, queueNeighbours, TaskQueueSharedError, unknownNeighboursWarning } from './shared-queue.js';

export const AGENT_PLUGIN_NAME = 'bounded-react-temporal';

/** What agentPlugin takes: the implementations, their deps, the approver directory, where big outputs go, the models, the queue check and the deployment. */
export interface AgentPluginOptions extends ActivityDeps {
  /**
   * When the queue is already polled by an agent worker of other domains: `refuse` (default,
   * TaskQueueSharedError from Worker.create) or `warn` (you mean it, e.g. a rolling deploy that
   * adds a domain).
   */
  sharedQueue?: 'refuse' | 'warn';
  /**
   * Run under Worker Versioning as this Worker Deployment Version (default: off). Runs are
   * pinned to the build that started them unless `behavior` says otherwise, and move to a new
   * current build at the engine's continue-as-new (worker/deployment.ts, docs/operations.md).
   */
  deployment?: AgentDeployment;
  /**
   * A worker given a prebuilt bundle without the quarantine's interceptors (built without this
   * plugin) is refused, QuarantineMissingError (default `'required'`). `'off'` runs it anyway:
   * then a payload the worker cannot decode fails the run's workflow tasks (docs/encryption.md).
   */
  quarantine?: 'required' | 'off';
  /**
   * What the worker serves: `runs` (default: the agent workflow's activities, all of them), or
   * `models`, only the model call, for a worker of a run's model queue (RunInput.modelQueue,
   * docs/spend.md). No agent workflow runs on a model queue, so its workers must not take tool
   * calls, readbacks or probes: a workflow of anyone's started there could schedule them, and would
   * pass for an agent run on that queue (activities/caller.ts).
   */
  serves?: 'runs' | 'models';
}

/** Every option agentPlugin takes (the compiler holds this to AgentPluginOptions). */
const PLUGIN_OPTIONS: OptionNames<AgentPluginOptions> = {
  implementations: true,
  deps: true,
  blobDir: true,
  toolTimeoutMs: true,
  readbackAttempts: true,
  models: true,
  approvers: true,
  resultKeys: true,
  sharedQueue: true,
  deployment: true,
  quarantine: true,
  serves: true,
};

/** Options earlier releases took, and what took their place: refused by name, never ignored. */
export const REMOVED_WORKER_OPTIONS: Readonly<Record<string, string>> = {
  spend: 'agentSpendPlugin(spendOptions) in `plugins` (docs/spend.md)',
  payloadCodecs: 'agentCodecPlugin(codecs) in `plugins` (docs/encryption.md)',
  dataConverter: 'agentCodecPlugin(codecs) in `plugins` for payload codecs, or workerOptions.dataConverter for converter paths',
  interceptors: 'workerOptions.interceptors',
  telemetry: 'agentTracingPlugin(createAgentTracing(...)) in `plugins` (docs/observability.md)',
};

/** An option createAgentWorker or agentPlugin does not take: one a release removed (`replacement` names what took its place), or a misspelt one. */
export class WorkerOptionError extends AgentWorkerError {
  static override readonly errorName: string = 'WorkerOptionError';
  readonly where: string;
  readonly option: string;
  readonly replacement: string | undefined;
  constructor(refused: RefusedOption) {
    super(refused.message);
    this.where = refused.where;
    this.option = refused.option;
    this.replacement = refused.replacement;
  }
}

/** agentPlugin's options (and `own`, the caller's), refused by name when one is not taken (workflows/option-names.ts). */
export function checkPluginOptions(where: string, options: object, own: Readonly<Record<string, true>> = {}): void {
  const refused = refusedOption(where, options, { ...PLUGIN_OPTIONS, ...own }, REMOVED_WORKER_OPTIONS);
  if (refused) throw new WorkerOptionError(refused);
  // A misspelt `serves` would serve everything, tool calls on a model queue among them.
  const serves = (options as { serves?: unknown }).serves;
  if (serves !== undefined && serves !== 'runs' && serves !== 'models') {
    const message = `${where}: serves is 'runs' or 'models', not ${JSON.stringify(serves)?.slice(0, 40)}`;
    throw new WorkerOptionError({ where, option: 'serves', replacement: undefined, message });
  }
}

/** Thrown by Worker.create when the worker's own activities use a name the engine's use. */
export class ActivityNameTakenError extends AgentWorkerError {
  static override readonly errorName: string = 'ActivityNameTakenError';
  constructor(readonly names: readonly string[]) {
    super(
      `the worker's activities ${names.map((n) => `'${n}'`).join(', ')} have the names of the agent engine's own activities, which agentPlugin registers: ` +
        `rename yours (and if you pass createActivities(...) yourself, drop it: the plugin brings them)`,
    );
  }
}

/** Workers in this process that run with the agent plugin and have not stopped. */
let runningWorkers = 0;

/**
 * What agentPlugin puts into a bundle (the engine's bundling and the quarantine's interceptors),
 * without the worker: for a bundle built before any worker exists (a build step, a test run).
 */
export const agentBundling = {
  name: AGENT_PLUGIN_NAME,
  configureBundler: (options: BundleOptions): BundleOptions => withQuarantineModule(withEngineBundling(options)),
} satisfies BundlerPlugin;

/**
 * What agentPlugin returns. Merging the engine's activities into the worker's (appended) is
 * SimplePlugin's work; one is held rather than extended because the shared-queue check must ask
 * the server before the worker starts, which SimplePlugin's synchronous configureWorker cannot.
 */
export class AgentPlugin implements WorkerPlugin, BundlerPlugin {
  readonly name = AGENT_PLUGIN_NAME;
  private readonly simple: SimplePlugin;
  private readonly agent: AgentPluginOptions;
  private readonly domainNames: string[];
  private readonly engineActivityNames: string[];
  private readonly deployment: WorkerOptions['workerDeploymentOptions'];

  constructor(options: AgentPluginOptions) {
    checkPluginOptions('agentPlugin', options);
    const { sharedQueue: _s, deployment, quarantine: _q, serves, ...deps } = options;
    // Checked here too: a deployment with a typo fails where it is given.
    this.deployment = deployment ? workerDeploymentOptions(deployment) : undefined;
    // Built here, not at Worker.create: a malformed approver directory fails where it is given.
    const all = createActivities(deps);
    const activities = serves === 'models' ? { propose: all.propose } : all;
    this.simple = new SimplePlugin({ name: AGENT_PLUGIN_NAME, activities });
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
    // A client's payload the worker cannot decode is refused, not fatal (quarantine-install.ts).
    return this.simple.configureWorker({
      ...withQuarantine(options, this.agent.quarantine ?? 'required'),
      taskQueue,
      ...(this.deployment ? { workerDeploymentOptions: this.deployment } : {}),
      identity: tagIdentity(options.identity, this.domainNames),
    });
  }

  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return this.simple.configureReplayWorker(withQuarantine(options));
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
    return agentBundling.configureBundler(this.simple.configureBundler(options));
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
