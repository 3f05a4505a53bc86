// The run bench/controller-walk.ts measures, one event at a time: an incident whose cache ran out
// of memory, in react. The model reads the cache's metrics, restarts it (the gate: provenance,
// the precondition on fresh evidence, the effect's key) and finishes; the probe confirms. Each
// event is taken by the controller it is handed (the instrumented copy), never this file's own.
const T0 = Date.parse('2025-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/* eslint-disable @typescript-eslint/no-explicit-any -- the controller is loaded from compiled copies, untyped */
interface Controller {
  next: (state: any, event: any, domain: any) => { state: any; command: any };
  initialState: (run: any) => any;
  domainDefaults: (domain: any) => any;
  domain: any;
}

/** The run's events in order; `take` feeds one to the controller and keeps the state it returns. */
export function* walkEvents(c: Controller): Generator<{ event: string; take: () => void }> {
  const defaults = c.domainDefaults(c.domain);
  let now = T0;
  let step = { state: undefined as any, command: undefined as any };
  step.state = c.initialState({
    runId: 'incidents-walk',
    domain: c.domain,
    caseId: 'INC-7',
    budgets: defaults.budgets,
    context: { strategy: defaults.context, window: defaults.window },
    chain: 'first-execution-run-id',
    now,
  });
  const feed = (event: Record<string, unknown>) => () => {
    step = c.next(step.state, { ...event, now: (now += 1_000) }, c.domain);
  };
  const propose = (reply: unknown) => feed({ type: 'proposed', reply, tokens: 100, contextTokens: step.command?.context?.tokenEstimate ?? 0 });
  const observe = (output: (args: any, at: number) => unknown) => () => {
    now += 500;
    const calls: any[] = step.command?.type === 'invoke' ? step.command.calls : [];
    const results = calls.map((call) => ({
      status: 'ok',
      callId: call.callId,
      output: output(call.args, now),
      attempt: 1,
      startedAt: now - 200,
      finishedAt: now,
    }));
    step = c.next(step.state, { type: 'observed', now, results }, c.domain);
  };
  const metrics = (memoryPct: number, healthy: boolean) => (args: any, at: number) => ({
    service: args.service,
    errorRate: healthy ? 0.001 : 0.2,
    latencyP99Ms: healthy ? 120 : 4_000,
    memoryPct,
    healthy,
    asOf: iso(at - 2_000),
  });
  const expect = (type: string, after: string) => {
    if (step.command?.type !== type)
      throw new Error(`after ${after} the controller asks for ${step.command?.type}, not ${type}: the walk's run has drifted from the controller`);
  };

  yield { event: 'started', take: feed({ type: 'started' }) };
  expect('propose', 'started');
  yield { event: 'proposed: read get_metrics', take: propose({ type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'cache' } }] }) };
  expect('invoke', 'the read');
  yield { event: 'observed: metrics (memory 97%)', take: observe(metrics(97, false)) };
  expect('propose', 'the metrics');
  const metricsEvidence = () => step.state.evidence.at(-1)?.id as string;
  const cited = metricsEvidence();
  yield { event: 'proposed: restart_service (effect)', take: propose({ type: 'call', calls: [{ tool: 'restart_service', args: { service: 'cache' } }] }) };
  expect('invoke', 'the restart');
  yield { event: 'observed: the restart applied', take: observe((args, at) => ({ effectId: 'fx-1', service: args.service, appliedAt: iso(at) })) };
  expect('propose', 'the restart');
  yield {
    event: 'proposed: finish',
    take: propose({ type: 'finish', outcome: 'resolved', claim: { remediated: 'cache' }, evidence: [step.state.evidence.at(-1)?.id ?? cited] }),
  };
  expect('verify', 'the finish');
  yield {
    event: 'verified: the probe holds',
    take: feed({
      type: 'verified',
      verdict: { holds: true, conflict: false, decided: true, detail: 'healthy', facts: { 'verify.healthy': true }, checkedAt: now + 1_000 },
    }),
  };
  expect('stop', 'the verdict');
  if (step.state.terminal?.class !== 'resolved') throw new Error(`the walk's run ended ${JSON.stringify(step.state.terminal)}, not resolved`);
}
