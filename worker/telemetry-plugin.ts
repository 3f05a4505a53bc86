// Traces and the engine's counters as plugins of their own, listed next to agentPlugin and a
// team's other plugins (`plugins: [agentTracingPlugin(), agentPlugin({...})]`), the way the
// SDK's contrib packages each bring one integration. A worker without them runs none of this code.
//
// SimplePlugin does the merging (interceptors appended after the worker's own, workflow modules
// into the bundle, the client interceptor on a Client); it is held rather than extended because
// it has no field for sinks, through which workflow spans leave the sandbox.
import type { ClientOptions, ClientPlugin } from '@temporalio/client';
import { SimplePlugin } from '@temporalio/plugin';
import type { BundleOptions, BundlerPlugin, InjectedSinks, ReplayWorkerOptions, Worker, WorkerOptions, WorkerPlugin } from '@temporalio/worker';
import { createAgentTracing, METRICS_WORKFLOW_MODULES, type AgentTracing } from './telemetry.js';

export const AGENT_TRACING_PLUGIN_NAME = 'bounded-react-temporal.tracing';
export const AGENT_METRICS_PLUGIN_NAME = 'bounded-react-temporal.metrics';

/** A telemetry integration: SimplePlugin's merging, plus the sinks SimplePlugin cannot carry. */
export class AgentTelemetryPlugin implements WorkerPlugin, BundlerPlugin, ClientPlugin {
  readonly name: string;

  constructor(
    private readonly simple: SimplePlugin,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's own type
    private readonly sinks: InjectedSinks<any> | undefined,
  ) {
    this.name = simple.name;
  }

  configureWorker(options: WorkerOptions): WorkerOptions {
    return this.simple.configureWorker({ ...options, ...this.withSinks(options.sinks) });
  }

  /** A replay worker given this plugin exports nothing: the exporter sink is not called during replay. */
  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return this.simple.configureReplayWorker({ ...options, ...this.withSinks(options.sinks) });
  }

  runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    return this.simple.runWorker(worker, next);
  }

  /** Workflow interceptor modules are workflow code: a prebuilt bundle is made with this plugin (`bundleWorkflows(path, { plugins })`). */
  configureBundler(options: BundleOptions): BundleOptions {
    return this.simple.configureBundler(options);
  }

  /** On a Client (`new Client({ plugins: [tracingPlugin] })`): runs it starts begin their trace at its StartWorkflow span. */
  configureClient(options: Omit<ClientOptions, 'plugins'>): Omit<ClientOptions, 'plugins'> {
    return this.simple.configureClient(options);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's own type
  private withSinks(existing: InjectedSinks<any> | undefined): { sinks?: InjectedSinks<any> } {
    if (!this.sinks) return existing ? { sinks: existing } : {};
    return { sinks: { ...existing, ...this.sinks } };
  }
}

/**
 * One OpenTelemetry trace per run, as a plugin: the engine's and Temporal's workflow interceptor
 * modules, the activity spans, the exporter sink, the client interceptor, and a flush of the
 * spans when the worker stops. Default: OTLP/HTTP as the process's OTEL_* variables say.
 *
 * @example
 * ```ts
 * const tracing = createAgentTracing({ serviceName: 'orders-agent' });
 * const worker = await Worker.create({ ...yourOptions, plugins: [agentTracingPlugin(tracing), agentPlugin({ implementations, blobDir })] });
 * ```
 */
export function agentTracingPlugin(tracing: AgentTracing = createAgentTracing()): AgentTelemetryPlugin {
  const simple = new SimplePlugin({
    name: AGENT_TRACING_PLUGIN_NAME,
    workerInterceptors: {
      workflowModules: [...tracing.workflowModules],
      activity: tracing.activityInterceptors,
      client: { workflow: [tracing.clientInterceptor] },
    },
    clientInterceptors: { workflow: [tracing.clientInterceptor] },
    runContext: async (next) => {
      try {
        await next();
      } finally {
        await tracing.flush();
      }
    },
  });
  return new AgentTelemetryPlugin(simple, tracing.sinks);
}

/**
 * The engine's counters without traces (its workflow module only), for a worker whose runtime
 * serves metrics (`Runtime.install({ telemetryOptions: prometheusTelemetry(address) })`).
 * Not needed beside agentTracingPlugin, whose modules include it.
 */
export function agentMetricsPlugin(): AgentTelemetryPlugin {
  return new AgentTelemetryPlugin(
    new SimplePlugin({ name: AGENT_METRICS_PLUGIN_NAME, workerInterceptors: { workflowModules: [...METRICS_WORKFLOW_MODULES] } }),
    undefined,
  );
}
