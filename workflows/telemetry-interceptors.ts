// The engine's workflow-side telemetry, as a workflow interceptor module: listed in the worker's
// `interceptors.workflowModules` (before `@temporalio/interceptors-opentelemetry`'s module) only
// when telemetry is on, so a worker without it bundles and runs none of this.
//
// It turns the steps of the agent loop into spans (invoke_agent for the run, one agent.turn per
// model turn with the gate's decisions on it, agent.approval for each wait for a person) and
// into counters on the SDK's workflow metric meter. Both are replay-safe by construction: spans
// made in the sandbox leave it only through the interceptors' `exporter` sink, which the worker
// does not call while replaying, and the workflow meter drops what is recorded during replay.
// Span and trace ids come from the sandbox's seeded randomness, so a span that a new worker
// finishes after replaying the start of a run has the id the first worker gave it.
import { context as otelContext, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import {
  metricMeter,
  workflowInfo,
  type ActivityInput,
  type LocalActivityInput,
  type ContinueAsNewInput,
  type Next,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { pendingRequest, type Step, type DecisionReceipt, type RunState } from './controller/index.js';
import { installStepObserver, type StepObserver } from './telemetry.js';

/** The tracer name of the engine's own spans (Temporal's are `@temporalio/interceptor-*`). */
export const ENGINE_TRACER = 'bounded-react-temporal';

/** Counter names; the Prometheus endpoint shows them with the runtime's prefix and suffixes. */
export const ENGINE_METRICS = {
  runsFinished: 'agent_runs_finished',
  refusals: 'agent_refusals',
  approvalsOpened: 'agent_approvals_opened',
  approvalsClosed: 'agent_approvals_closed',
} as const;

class RunTelemetry implements StepObserver {
  private tracer: Tracer | undefined;
  private run: Span | undefined;
  private turn: { span: Span; number: number } | undefined;
  private approval: { span: Span; requestId: string } | undefined;
  private decisionsSeen = 0;
  private carriedRequest: string | undefined;
  private finished = false;
  private domain = '';

  step({ state }: Step): void {
    if (this.finished) return;
    if (!this.run) this.begin(state);
    this.gateDecisions(state);
    if (state.turn > 0 && state.turn !== this.turn?.number) this.beginTurn(state.turn);
    this.approvals(state);
    if (state.terminal) this.finish(state);
  }

  /** The span activities scheduled now belong under: the approval wait, else the turn, else the run. */
  current(): Span | undefined {
    return this.finished ? undefined : (this.approval?.span ?? this.turn?.span ?? this.run);
  }

  /** The execution ends without a terminal (continue-as-new): close what is open, so it is exported. */
  close(how: string): void {
    if (this.finished || !this.run) return;
    this.finished = true;
    this.approval?.span.setAttribute('agent.approval.decision', 'carried_over').end();
    this.turn?.span.end();
    this.run.setAttribute('agent.execution.end', how).end();
  }

  private begin(state: RunState): void {
    this.tracer = trace.getTracer(ENGINE_TRACER);
    this.domain = state.domain;
    const info = workflowInfo();
    const carried = info.continuedFromExecutionRunId !== undefined;
    // What a previous execution of this run reported stays reported.
    if (carried) {
      this.decisionsSeen = state.dropped.decisions + state.decisions.length;
      this.carriedRequest = pendingRequest(state)?.requestId;
    }
    this.run = this.tracer.startSpan(`invoke_agent ${state.domain}`, {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': state.domain,
        'gen_ai.conversation.id': state.runId,
        'agent.case_id': state.caseId,
        'agent.carried': carried,
        'agent.budget.turns': state.budgets.turns,
      },
    });
  }

  private gateDecisions(state: RunState): void {
    const total = state.dropped.decisions + state.decisions.length;
    if (total <= this.decisionsSeen) return;
    const fresh = state.decisions.slice(Math.max(0, state.decisions.length - (total - this.decisionsSeen)));
    this.decisionsSeen = total;
    for (const d of fresh) this.gate(d);
  }

  private gate(d: DecisionReceipt): void {
    const attributes: Attributes = {
      'agent.gate.decision': d.accepted ? 'accepted' : 'refused',
      'agent.gate.reason': d.reason,
      'agent.evidence.ids': d.evidenceIds,
      'agent.turn.number': d.turn,
    };
    const span = this.turn?.number === d.turn ? this.turn.span : this.run;
    span?.addEvent('agent.gate', attributes);
    // The turn carries its last decision as attributes too, for backends that do not index events.
    span?.setAttributes(attributes);
    if (!d.accepted)
      metricMeter
        .createCounter(ENGINE_METRICS.refusals, 'refusals', 'proposals the gate refused, by reason code')
        .add(1, { domain: this.domain, code: d.reason });
  }

  private beginTurn(n: number): void {
    this.turn?.span.end();
    const parent = this.run ? trace.setSpan(otelContext.active(), this.run) : otelContext.active();
    const span = this.tracer?.startSpan('agent.turn', { attributes: { 'agent.turn.number': n } }, parent);
    this.turn = span ? { span, number: n } : undefined;
  }

  private approvals(state: RunState): void {
    const pending = pendingRequest(state);
    if (this.approval && this.approval.requestId !== pending?.requestId) this.closeApproval(state, this.approval);
    if (!pending || this.approval) return;
    const parentSpan = this.turn?.span ?? this.run;
    const parent = parentSpan ? trace.setSpan(otelContext.active(), parentSpan) : otelContext.active();
    // A wait that rode along a continue-as-new was counted by the execution that raised it.
    const carried = pending.requestId === this.carriedRequest;
    const span = this.tracer?.startSpan(
      'agent.approval',
      {
        attributes: {
          'agent.approval.request_id': pending.requestId,
          'gen_ai.tool.name': pending.call.tool,
          'gen_ai.tool.call.id': pending.call.callId,
          'agent.approval.roles': pending.roles,
          'agent.approval.quorum': pending.quorum ?? 1,
          'agent.evidence.ids': pending.evidenceIds,
          'agent.approval.expires_at': pending.expiresAt,
        },
      },
      parent,
    );
    if (!span) return;
    this.approval = { span, requestId: pending.requestId };
    if (!carried) metricMeter.createCounter(ENGINE_METRICS.approvalsOpened, 'approvals', 'approval requests raised').add(1, { domain: this.domain });
  }

  private closeApproval(state: RunState, open: { span: Span; requestId: string }): void {
    const record = state.approvals.find((a) => a.requestId === open.requestId);
    const decision = record?.decision ?? (state.terminal ? 'run_ended' : 'withdrawn');
    open.span.setAttribute('agent.approval.decision', decision);
    if (record) open.span.setAttribute('agent.approval.by', record.by);
    open.span.end();
    this.approval = undefined;
    metricMeter
      .createCounter(ENGINE_METRICS.approvalsClosed, 'approvals', 'approval requests decided, timed out or withdrawn')
      .add(1, { domain: this.domain, decision });
  }

  private finish(state: RunState): void {
    const terminal = state.terminal;
    if (!terminal || !this.run) return;
    if (this.approval) this.closeApproval(state, this.approval);
    this.turn?.span.end();
    this.finished = true;
    this.run.setAttributes({
      'agent.terminal.class': terminal.class,
      'agent.terminal.reason': terminal.reason,
      'agent.turns': state.turn,
      'agent.tool_calls': state.used.toolCalls,
      'agent.effects': state.used.effects,
      'agent.usage.tokens': state.used.tokens,
    });
    if (terminal.class === 'failed') this.run.setStatus({ code: SpanStatusCode.ERROR, message: terminal.reason });
    this.run.end();
    metricMeter
      .createCounter(ENGINE_METRICS.runsFinished, 'runs', 'agent runs that reached a terminal, by class')
      .add(1, { domain: this.domain, terminal_class: terminal.class });
  }
}

/** The workflow interceptors of the engine's telemetry: one RunTelemetry per run. */
export const interceptors: WorkflowInterceptorsFactory = () => {
  const telemetry = new RunTelemetry();
  installStepObserver(telemetry);
  const outbound: WorkflowOutboundCallsInterceptor = {
    // Outermost (listed before Temporal's module), so Temporal's StartActivity span, and the
    // activity's spans under it, are children of the turn or approval wait that scheduled it.
    scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
      const span = telemetry.current();
      return span ? otelContext.with(trace.setSpan(otelContext.active(), span), () => next(input)) : next(input);
    },
    // The seal check (workflows/sealed.ts) is a local activity: its spans join the run's trace too.
    scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>) {
      const span = telemetry.current();
      return span ? otelContext.with(trace.setSpan(otelContext.active(), span), () => next(input)) : next(input);
    },
    continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>) {
      telemetry.close('continue_as_new');
      return next(input);
    },
  };
  return { outbound: [outbound] };
};
