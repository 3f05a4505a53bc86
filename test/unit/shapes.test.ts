// Execution shapes on the pure controller: who proposes each step (route, plan, model), what a
// model turn was asked about, and that a step the route takes is judged exactly as a model's
// would be (a route that proposes what the gate refuses gets nowhere in any shape).
import { describe, expect, it } from 'vitest';
import { incidents } from '../../domains/incidents/domain.js';
import { incidentsRoute } from '../../domains/incidents/route.js';
import { payments } from '../../domains/payments/domain.js';
import { paymentsRoute } from '../../domains/payments/route.js';
import type { Domain } from '../../workflows/contract.js';
import type { EvidenceView } from '../../workflows/tool-contract.js';
import { metricsOf, out, readAck, readLedger, reissue, Run, TRANSFER } from '../support/driver.js';
import { pendingRequest } from '../support/phase.js';

const ledgerSays =
  (status: string, reissueId: string | null = null) =>
  (args: never, now: number) => ({ ...out.ledger(status)(args, now), reissueId });

const by = (run: Run) => run.state.decisions.map((d) => d.by);
const callsOf = (run: Run) => run.calls.map((c) => `${c.tool} ${JSON.stringify(c.args)}`);

describe('shape hybrid: the route decides where it knows the way', () => {
  it('a settled transfer: reads at once, finish, probe — and no model call', () => {
    const run = new Run(payments, { shape: 'hybrid' });
    expect(callsOf(run)).toEqual([`read_ledger {"transferId":"${TRANSFER}"}`, `read_processor_ack {"transferId":"${TRANSFER}"}`]);
    run.observeOk({ read_ledger: ledgerSays('SETTLED'), read_processor_ack: out.ack('RECEIVED') });
    expect(run.command.type).toBe('verify');
    run.verify({ holds: true });
    expect(run.state.terminal?.class).toBe('resolved');
    expect(run.state.used.modelCalls).toBe(0);
    expect(by(run)).toEqual(['route', 'route']);
    expect(run.state.used.tokens).toBe(0);
  });

  it('asks the model only where the route is open, and the receipt says what was open', () => {
    const run = new Run(payments, { shape: 'hybrid' });
    run.observeOk({ read_ledger: ledgerSays('NOT_FOUND'), read_processor_ack: out.ack('RECEIVED') });
    expect(run.command.type).toBe('propose');
    const open = run.command.type === 'propose' ? run.command.context.open : undefined;
    expect(open?.join(' ')).toMatch(/says NOT_FOUND .* processor says RECEIVED: the runbook has no rule/);
    run.propose({ type: 'escalate', reason: 'the ledger has no record of a transfer the processor received' });
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'model_escalation' });
    expect(run.lastDecision).toMatchObject({ by: 'model', open });
    expect(run.state.used.modelCalls).toBe(1);
  });

  it('a failed transfer: reissue (an approver still signs), read the ledger again, finish', () => {
    const run = new Run(payments, { shape: 'hybrid' });
    run.observeOk({ read_ledger: ledgerSays('FAILED'), read_processor_ack: out.ack('REJECTED') });
    expect(run.command.type).toBe('loadApprovers');
    expect(pendingRequest(run.state)?.call.tool).toBe('reissue_transfer');
    expect(run.lastDecision).toMatchObject({ by: 'route', reason: 'awaiting_approval' });
  });

  it('the ledger already records a reissue by an earlier run: nothing moves again', () => {
    const run = new Run(payments, { shape: 'hybrid' });
    run.observeOk({ read_ledger: ledgerSays('FAILED', 'RI-earlier'), read_processor_ack: out.ack('REJECTED') });
    expect(run.command.type).toBe('verify');
    expect(run.invokedEver('reissue_transfer')).toBe(false);
  });

  it('incidents: metrics of all three at once, restart, metrics again, finish', () => {
    const run = new Run(incidents, { shape: 'hybrid' });
    expect(callsOf(run)).toHaveLength(3);
    run.observeOk({
      get_metrics: (args: { service: string }, now: number) => out.metrics(args.service !== 'cache', args.service === 'cache' ? 97 : 40)(args, now),
    });
    expect(callsOf(run)).toEqual(['restart_service {"service":"cache"}']);
    run.observeOk({ restart_service: out.effect() });
    expect(callsOf(run)).toEqual(['get_metrics {"service":"cache"}']);
    run.observeOk({ get_metrics: out.metrics(true, 40) });
    expect(run.command).toMatchObject({ type: 'verify', claim: { remediated: 'cache' } });
    expect(run.state.used.modelCalls).toBe(0);
  });

  it('incidents: every service healthy: the route escalates instead of proposing a restart', () => {
    const run = new Run(incidents, { shape: 'hybrid' });
    run.observeOk({ get_metrics: out.metrics(true, 40) });
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'route_escalation' });
    expect(run.invokedEver('restart_service')).toBe(false);
  });

  it('incidents: two sick services are a judgement: the model is asked', () => {
    const run = new Run(incidents, { shape: 'hybrid' });
    run.observeOk({
      get_metrics: (args: { service: string }, now: number) => out.metrics(args.service === 'db', args.service === 'cache' ? 97 : 40)(args, now),
    });
    expect(run.command.type).toBe('propose');
    expect(run.command.type === 'propose' && run.command.context.open?.[0]).toMatch(/api and cache are unhealthy/);
  });
});

describe('a route is judged as a model is', () => {
  // A route that would move money the ledger does not justify (a SETTLED transfer).
  const reckless: Domain = { ...payments, route: { decide: () => ({ call: [reissue], why: 'reckless' }) } };

  it('hybrid: its refused step goes to the model, with the refusal as what is open', () => {
    const run = new Run(reckless, { shape: 'hybrid' });
    expect(run.command.type).toBe('propose');
    expect(run.lastDecision).toMatchObject({ by: 'route', accepted: false, reason: 'precondition_failed' });
    expect(run.command.type === 'propose' && run.command.context.open?.[0]).toMatch(/came back precondition_failed/);
    run.call(readLedger, readAck);
    run.observeOk({ read_ledger: ledgerSays('SETTLED'), read_processor_ack: out.ack('RECEIVED') });
    // The route asks again with new facts; the gate refuses again; the model decides.
    expect(run.invokedEver('reissue_transfer')).toBe(false);
    expect(pendingRequest(run.state)).toBeUndefined();
  });

  it('workflow: the refused step ends the run escalated, nothing moved', () => {
    const run = new Run(reckless, { shape: 'workflow' });
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'route_undecided' });
    expect(run.lastDecision).toMatchObject({ by: 'route', reason: 'route_undecided' });
    expect(run.invokedEver('reissue_transfer')).toBe(false);
  });

  it('a route that throws leaves the step open; it never fails the run', () => {
    const broken: Domain = {
      ...payments,
      route: {
        decide: () => {
          throw new Error('boom');
        },
      },
    };
    const run = new Run(broken, { shape: 'hybrid' });
    expect(run.command.type === 'propose' && run.command.context.open).toEqual(['the route failed: boom']);
  });
});

describe('shape workflow', () => {
  it('escalates where the route cannot decide, with what was open', () => {
    const run = new Run(payments, { shape: 'workflow' });
    run.observeOk({ read_ledger: ledgerSays('NOT_FOUND'), read_processor_ack: out.ack('RECEIVED') });
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'route_undecided' });
    expect(run.state.terminal?.detail).toMatch(/NOT_FOUND/);
    expect(run.state.used.modelCalls).toBe(0);
  });
});

describe('shape react and runs without a shape', () => {
  it('react: the model is asked first, and its receipt says so', () => {
    const run = new Run(payments, { shape: 'react' });
    expect(run.command.type).toBe('propose');
    run.call(readLedger);
    expect(run.lastDecision).toMatchObject({ by: 'model', open: ['shape react: the model decides every step'] });
  });

  it('no shape (every run recorded before shapes): no route is consulted, nothing new is recorded', () => {
    const run = new Run(payments);
    expect(run.command.type).toBe('propose');
    run.call(readLedger);
    expect(run.state.shape).toBeUndefined();
    expect(run.state.used.modelCalls).toBeUndefined();
    expect(run.lastDecision?.open).toBeUndefined();
  });
});

describe('the example routes read only what they act on', () => {
  const view = (evidence: EvidenceView[]) => ({ caseId: TRANSFER, evidence, done: [] });
  const ledger = (id: string, transfer: string, status: string, reissueId: string | null = null): EvidenceView => ({
    id,
    tool: 'read_ledger',
    source: 'ledger',
    authority: 'authoritative',
    fresh: true,
    status: 'ok',
    facts: { 'ledger.status': status, 'ledger.reissueId': reissueId },
    subject: `transfer:${transfer}`,
  });

  it("payments: the newest ledger read of another transfer does not decide this one's", () => {
    const step = paymentsRoute.decide(view([ledger('e1', TRANSFER, 'SETTLED'), ledger('e2', 'PX-9999', 'FAILED')]));
    expect(step).toMatchObject({ finish: { claim: { transferStatus: 'SETTLED' }, evidence: ['e1'] } });
  });

  it("payments: the ledger's record of an earlier reissue closes the case without a second one", () => {
    expect(paymentsRoute.decide(view([ledger('e1', TRANSFER, 'FAILED', 'RI-7')]))).toMatchObject({ finish: { evidence: ['e1'] } });
  });

  it('incidents: healthy services, nothing done: escalate', () => {
    const healthy = ['api', 'db', 'cache'].map((s, i): EvidenceView => ({
      id: `e${i + 1}`,
      tool: 'get_metrics',
      source: 'metrics',
      authority: 'authoritative',
      fresh: true,
      status: 'ok',
      facts: { [`${s}.healthy`]: true, [`${s}.memoryPct`]: 40 },
      subject: `service:${s}`,
    }));
    expect(incidentsRoute.decide({ caseId: 'INC-7', evidence: healthy, done: [] })).toHaveProperty('escalate');
    expect(metricsOf('api').tool).toBe('get_metrics');
  });
});
