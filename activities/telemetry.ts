// The engine's activity-side spans, as an activity interceptor: `chat` around the model call,
// `execute_tool` around a tool call, `agent.readback` and `agent.verify` around the checks.
// An interceptor rather than code in each activity, so the model adapters (and whoever writes
// them) know nothing of tracing, and a worker without telemetry runs none of it. It runs inside
// Temporal's RunActivity span, whose context is active, so these spans are its children.
// Activities run only when they really run, never on replay: a span here is an attempt made.
import { createHash } from 'node:crypto';
import { SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptors, Next } from '@temporalio/worker';
import { isEnvelope } from '../workflows/protocol.js';

/**
 * What an idempotency key is in a span: a digest, never the key (with the key, anyone who reads
 * traces could repeat the effect). Keyed by `salt` when one is given, so the digest cannot be
 * recomputed from a guessed run id either.
 */
export function keyDigest(key: string, salt = ''): string {
  return createHash('sha256').update(salt).update('\0').update(key).digest('hex').slice(0, 32);
}

export interface EngineSpanOptions {
  tracer: Tracer;
  /** Mixed into idempotency-key digests (AGENT_TRACE_KEY_SALT). */
  keySalt?: string;
}

/** The activity interceptor factory: list it after Temporal's, which makes the RunActivity span. */
export function engineActivitySpans(options: EngineSpanOptions): (ctx: ActivityContext) => ActivityInterceptors {
  return (ctx) => ({ inbound: new EngineActivitySpans(ctx, options) });
}

type Shape = { name: string; kind: SpanKind; attributes: Attributes; after(result: unknown, span: Span): void };

class EngineActivitySpans implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: ActivityContext,
    private readonly options: EngineSpanOptions,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const shape = this.shapeOf(this.ctx.info.activityType, input.args[0]);
    if (!shape) return next(input);
    return this.options.tracer.startActiveSpan(
      shape.name,
      { kind: shape.kind, attributes: { ...shape.attributes, 'agent.attempt': this.ctx.info.attempt } },
      async (span) => {
        try {
          const result = await next(input);
          // A sealed result (activities/result-seal.ts) is described by what it seals.
          shape.after(isEnvelope(result) ? result.sealed : result, span);
          return result;
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message.slice(0, 200) : 'failed' });
          span.setAttribute('error.type', err instanceof Error ? err.name : 'error');
          throw err;
        } finally {
          span.end();
        }
      },
    );
  }

  private shapeOf(activityType: string, arg: unknown): Shape | undefined {
    const a = (arg ?? {}) as Record<string, unknown>;
    switch (activityType) {
      case 'propose':
        return chatShape(a);
      case 'invokeTool':
        return toolShape(a, this.options.keySalt);
      case 'readback':
        return readbackShape(a, this.options.keySalt);
      case 'verify':
        return {
          name: 'agent.verify',
          kind: SpanKind.INTERNAL,
          attributes: { 'agent.domain': str(a.domain) },
          after: (result, span) => {
            const v = (result ?? {}) as Record<string, unknown>;
            span.setAttributes({
              'agent.verify.holds': v.holds === true,
              'agent.verify.conflict': v.conflict === true,
              'agent.verify.decided': v.decided === true,
            });
          },
        };
      default:
        return undefined;
    }
  }
}

function chatShape(a: Record<string, unknown>): Shape {
  const model = (a.model ?? {}) as Record<string, unknown>;
  const runtime = ((a.context ?? {}) as { runtime?: { turn?: unknown } }).runtime;
  const provider = str(model.adapter);
  const requested = str(model.model) || str(model.name) || provider;
  return {
    name: `chat ${requested}`,
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': provider === 'custom' ? str(model.name) : provider,
      'gen_ai.request.model': requested,
      ...(typeof runtime?.turn === 'number' ? { 'agent.turn.number': runtime.turn } : {}),
    },
    after: (result, span) => {
      const r = (result ?? {}) as Record<string, unknown>;
      if (typeof r.tokens === 'number') span.setAttribute('agent.usage.tokens', r.tokens);
      // The split only where the adapter reports it; where it counted an estimate (the provider
      // left usage out), the figures are labelled as such, not passed off as the provider's.
      const usage = (r.usage ?? {}) as Record<string, unknown>;
      const prefix = usage.estimated === true ? 'agent.usage.estimated_' : 'gen_ai.usage.';
      if (typeof usage.inputTokens === 'number') span.setAttribute(`${prefix}input_tokens`, usage.inputTokens);
      if (typeof usage.outputTokens === 'number') span.setAttribute(`${prefix}output_tokens`, usage.outputTokens);
      if (typeof r.model === 'string') span.setAttribute('gen_ai.response.model', r.model);
    },
  };
}

function toolShape(a: Record<string, unknown>, salt: string | undefined): Shape {
  const call = (a.call ?? {}) as Record<string, unknown>;
  const key = typeof call.idempotencyKey === 'string' ? call.idempotencyKey : undefined;
  return {
    name: `execute_tool ${str(call.tool)}`,
    kind: SpanKind.INTERNAL,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': str(call.tool),
      'gen_ai.tool.call.id': str(call.callId),
      'gen_ai.tool.type': 'function',
      'agent.tool.kind': str(call.kind),
      'agent.tool.idempotent': call.idempotent === true,
      ...(typeof call.turn === 'number' ? { 'agent.turn.number': call.turn } : {}),
      ...(key ? { 'agent.idempotency_key.digest': keyDigest(key, salt) } : {}),
    },
    after: (result, span) => {
      const r = (result ?? {}) as Record<string, unknown>;
      span.setAttribute('agent.tool.status', str(r.status));
      if (typeof r.errorClass === 'string') span.setAttribute('error.type', r.errorClass);
      // What this attempt did, said once: the workflow never re-runs an activity on replay.
      if (call.kind === 'effect') span.setAttribute('agent.effect.executed', r.status === 'ok');
    },
  };
}

function readbackShape(a: Record<string, unknown>, salt: string | undefined): Shape {
  return {
    name: `agent.readback ${str(a.tool)}`,
    kind: SpanKind.INTERNAL,
    attributes: {
      'agent.readback.tool': str(a.tool),
      'gen_ai.tool.call.id': str(a.callId),
      ...(typeof a.key === 'string' ? { 'agent.idempotency_key.digest': keyDigest(a.key, salt) } : {}),
    },
    after: (result, span) => {
      const r = (result ?? {}) as Record<string, unknown>;
      span.setAttribute('agent.readback.verdict', str(r.outcome));
      if (typeof r.attempts === 'number') span.setAttribute('agent.readback.attempts', r.attempts);
    },
  };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
