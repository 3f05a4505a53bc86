// Traces and metrics for a worker of the agent workflow: what a worker (or the worker plugin)
// adds to its options to export one trace per run to an OTLP endpoint, and the runtime options
// that serve the SDK's metrics, with the engine's counters, on a Prometheus endpoint.
//
// Built on `@temporalio/interceptors-opentelemetry` 1.24, which is on OpenTelemetry JS v1: it is
// the line that matches the SDK we run (1.24) on Node 20. Its v2 line changes what the workflow
// interceptors write into history, so histories recorded under one do not replay under the
// other: moving to v2 is a deliberate migration (docs/observability.md), not a version bump.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { context, propagation, ROOT_CONTEXT, type Context, type ContextManager, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type Sampler, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks, TelemetryOptions } from '@temporalio/worker';
import { engineActivitySpans } from '../activities/telemetry.js';

export { ENGINE_METRICS, ENGINE_TRACER } from '../workflows/telemetry-interceptors.js';
export { keyDigest } from '../activities/telemetry.js';

const ENGINE_WORKFLOW_MODULE = fileURLToPath(new URL('../workflows/telemetry-interceptors.js', import.meta.url));
/**
 * The workflow interceptor modules tracing needs, for a prebuilt bundle
 * (`workflowInterceptorModules`), in order: the engine's first (outermost, so Temporal's
 * StartActivity spans nest under the turn that scheduled them), then Temporal's.
 */
export const TRACING_WORKFLOW_MODULES: readonly string[] = [
  ENGINE_WORKFLOW_MODULE,
  createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

/**
 * The engine's module alone: its counters without traces (its spans then go to the sandbox's
 * no-op tracer). For a worker that wants metrics only, beside prometheusTelemetry().
 */
export const METRICS_WORKFLOW_MODULES: readonly string[] = [ENGINE_WORKFLOW_MODULE];

export interface AgentTracingOptions {
  /** Where spans go. Default: an OTLP/HTTP exporter configured by the OTEL_EXPORTER_OTLP_* variables. */
  spanProcessor?: SpanProcessor;
  /** service.name of the worker's spans (default OTEL_SERVICE_NAME, else `agent-worker`). */
  serviceName?: string;
  /** Mixed into the digests of idempotency keys in spans (default AGENT_TRACE_KEY_SALT). */
  keySalt?: string;
  /**
   * Of the worker's own spans (client StartWorkflow, activities). Runs started through the traced
   * client carry the decision into the workflow, whose tracer follows its parent.
   */
  sampler?: Sampler;
}

/** Everything a worker adds for tracing; see docs/observability.md for how to wire it. */
export interface AgentTracing {
  tracer: Tracer;
  /** For `interceptors.workflowModules` (and `workflowInterceptorModules` of a prebuilt bundle). */
  workflowModules: readonly string[];
  /** For `interceptors.activity`: Temporal's RunActivity spans, then the engine's spans inside them. */
  activityInterceptors: ActivityInterceptorsFactory[];
  /** For `sinks`: the sink through which spans made in the workflow sandbox are exported (never on replay). */
  sinks: InjectedSinks<OpenTelemetrySinks>;
  /** For a `Client`'s `interceptors.workflow`, so a run's trace starts at the client that started it. */
  clientInterceptor: OpenTelemetryWorkflowClientInterceptor;
  /** Exports what is buffered (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Tracing in code: one OpenTelemetry trace per run (GenAI conventions); a worker takes it as `agentTracingPlugin(tracing)`. */
export function createAgentTracing(options: AgentTracingOptions = {}, env: NodeJS.ProcessEnv = process.env): AgentTracing {
  const resource = new Resource({ 'service.name': options.serviceName ?? env.OTEL_SERVICE_NAME ?? 'agent-worker' });
  const spanProcessor = options.spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new BasicTracerProvider({ resource, ...(options.sampler ? { sampler: options.sampler } : {}) });
  provider.addSpanProcessor(spanProcessor);
  // Not registered as the global provider: a team's own tracing setup stays theirs. Context
  // propagation needs a global propagator and context manager; one the team set up is kept.
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(new AsyncContextManager());
  const tracer = provider.getTracer('bounded-react-temporal');
  const keySalt = options.keySalt ?? env.AGENT_TRACE_KEY_SALT;
  const activityInterceptors: ActivityInterceptorsFactory[] = [
    (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) }),
    engineActivitySpans({ tracer, ...(keySalt ? { keySalt } : {}) }),
  ];
  const sinks: InjectedSinks<OpenTelemetrySinks> = { exporter: makeWorkflowExporter(spanProcessor, resource) };
  const clientInterceptor = new OpenTelemetryWorkflowClientInterceptor({ tracer });
  return {
    tracer,
    workflowModules: TRACING_WORKFLOW_MODULES,
    activityInterceptors,
    sinks,
    clientInterceptor,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Tracing as the environment asks: on when OTEL_EXPORTER_OTLP_ENDPOINT (or its _TRACES_ form)
 * is set and OTEL_TRACES_EXPORTER is not `none`. The endpoint is taken from `env`, so an
 * environment given as an object is the one obeyed; the exporter and batch processor read the
 * rest of OTEL_* (headers, delays) from the process's own environment.
 */
export function agentTracingFromEnv(env: NodeJS.ProcessEnv = process.env): AgentTracing | undefined {
  const url = otlpTracesUrl(env);
  if (!url || env.OTEL_TRACES_EXPORTER?.trim() === 'none') return undefined;
  return createAgentTracing({ spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url })) }, env);
}

/** Where OTLP/HTTP spans go by the specification's rule: the signal's own endpoint as given, else `<endpoint>/v1/traces`. */
function otlpTracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/**
 * The runtime's telemetry with a Prometheus endpoint: pass it to `Runtime.install({ telemetryOptions })`
 * before the process makes its first connection. The engine's counters come out of it too.
 */
export function prometheusTelemetry(bindAddress: string): TelemetryOptions {
  return { metrics: { prometheus: { bindAddress } } };
}

/** AGENT_METRICS_ADDRESS (e.g. `127.0.0.1:9464`) as runtime telemetry options, or nothing. */
export function prometheusTelemetryFromEnv(env: NodeJS.ProcessEnv = process.env): TelemetryOptions | undefined {
  const address = env.AGENT_METRICS_ADDRESS?.trim();
  return address ? prometheusTelemetry(address) : undefined;
}

/** The active context per async call chain, for processes whose team registered none. */
class AsyncContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => this.with(ctx, () => fn(...args))) as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}
