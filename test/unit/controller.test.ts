// The pure controller, driven by hand: feed events, look at the state and the next command.
// No server, no Temporal, no clock: time comes on the events. The trust boundary's own rules
// (preconditions, provenance, signatures) are driven in test/unit/trust-boundary.test.ts.
import { domainDefaults } from '../../workflows/contract.js';
import { describe, expect, it } from 'vitest';
import { incidents } from '../../domains/incidents/domain.js';
import { payments } from '../../domains/payments/domain.js';
import { STATE_VERSION } from '../../workflows/controller/state.js';
import { contractOf } from '../../workflows/controller/transitions.js';
import { DEFAULT_COMMIT_WINDOW_MS } from '../../workflows/policy.js';
import { statementFingerprint } from '../../workflows/statement-use.js';
import {
  HOSTILE,
  Run,
  TRANSFER,
  contextTokensOf,
  failed,
  metricsOf,
  ok,
  out,
  readAck,
  readLedger,
  readReplica,
  reissue,
  restart,
  revert,
} from '../support/driver.js';
import { callsInFlight, claimOf, pendingRequest } from '../support/phase.js';

/** A payments run that has read the ledger once (FAILED unless told) and is proposing again. */
function paymentsWithLedger(status = 'FAILED', opts: ConstructorParameters<typeof Run>[1] = {}): Run {
  const run = new Run(payments, opts);
  run.call(readLedger);
  run.observeOk({ read_ledger: out.ledger(status) });
  expect(run.command.type).toBe('propose');
  return run;
}

/** A payments run waiting for someone to approve a reissue. */
function awaitingReissueApproval(opts: ConstructorParameters<typeof Run>[1] = {}): Run {
  const run = paymentsWithLedger('FAILED', opts);
  run.call(reissue);
  expect(run.state.phase.name).toBe('awaiting_approval');
  run.loadApprovers();
  return run;
}

/** An incidents run whose restart of `api` came back `unknown` and must be read back. */
function restartInDoubt(): Run {
  const run = new Run(incidents).grounded(restart('api'));
  run.call(restart('api'));
  run.observe((c, now) => failed(c.callId, 'unknown', 'unknown', 'connection reset after the request was sent', now));
  return run;
}

// ---------------------------------------------------------------- tests

describe('start', () => {
  it('opens the first turn and asks the model to propose, with the goal and tools in context', () => {
    const run = new Run(payments);
    expect(run.state.phase.name).toBe('proposing');
    expect(run.state.turn).toBe(1);
    expect(run.state.version).toBe(STATE_VERSION);
    expect(run.command.type).toBe('propose');
    if (run.command.type !== 'propose') return;
    expect(run.command.proposalIndex).toBe(0);
    expect(run.command.context.goal).toContain('PX-1042');
    expect(run.command.context.tools.map((t) => t.name)).toEqual(['read_replica', 'read_ledger', 'read_processor_ack', 'reissue_transfer']);
    expect(run.command.context.runtime.left.turns).toBe(domainDefaults(payments).budgets.turns - 1);
  });

  it('a finished run ignores late events', () => {
    const run = new Run(payments);
    run.propose({ type: 'escalate', reason: 'nothing to do' });
    const before = run.state;
    run.feed({ type: 'noteAdded', now: run.tick(), by: 'op', text: 'late' });
    run.feed({ type: 'cancelled', now: run.tick(), by: 'op', reason: 'late' });
    expect(run.state).toBe(before);
    expect(run.command).toEqual({ type: 'stop', terminal: before.terminal });
  });
});

describe('invalid proposals', () => {
  it.each([
    ['text that is not JSON', 'I think we should read the ledger'],
    ['JSON text of the wrong shape', '{"type":"call","calls":[]}'],
    ['an object of the wrong shape', { type: 'call', tool: 'read_ledger' }],
    ['an unknown decision type', { type: 'retry_payment' }],
    ['null', null],
    ['a finish without evidence', { type: 'finish', outcome: 'resolved', claim: { transferStatus: 'SETTLED' }, evidence: [] }],
  ])('%s is rejected and fed back as invalid_proposal', (_label, reply) => {
    const run = new Run(payments);
    const command = run.propose(reply, 40);
    expect(command.type).toBe('propose');
    expect(run.state.turn).toBe(2);
    expect(run.lastControl).toMatchObject({ kind: 'control', code: 'invalid_proposal', turn: 1 });
    expect(run.lastDecision).toMatchObject({ turn: 1, accepted: false, reason: 'invalid_proposal' });
    expect(run.state.used.tokens).toBe(40); // the tokens were spent all the same
    expect(run.state.used.toolCalls).toBe(0);
    if (command.type === 'propose') {
      expect(command.context.transcript.some((t) => t.kind === 'control' && t.code === 'invalid_proposal')).toBe(true);
    }
  });

  it('accepts a decision given as JSON text', () => {
    const run = new Run(payments);
    run.propose(JSON.stringify({ type: 'call', calls: [readLedger] }));
    expect(run.calls.map((c) => c.tool)).toEqual(['read_ledger']);
  });

  it('an unknown tool is refused with unknown_tool and never invoked', () => {
    const run = new Run(payments);
    const command = run.call({ tool: 'transfer_money', args: { to: 'attacker' } });
    expect(command.type).toBe('propose');
    expect(run.lastControl?.code).toBe('unknown_tool');
    expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'unknown_tool' });
    expect(run.history.some((h) => h.command.type === 'invoke')).toBe(false);
  });

  it.each([
    ['a malformed transfer id', { tool: 'read_ledger', args: { transferId: 'not an id' } }],
    ['an extra argument', { tool: 'read_ledger', args: { transferId: TRANSFER, amountMinor: 1 } }],
    ['missing arguments', { tool: 'reissue_transfer', args: { transferId: TRANSFER } }],
    ['a destination smuggled into an effect', { tool: 'reissue_transfer', args: { ...reissue.args, destination: 'XX00' } }],
  ])('%s is refused with invalid_arguments and never invoked', (_label, call) => {
    const run = new Run(payments);
    const command = run.call(call);
    expect(command.type).toBe('propose');
    expect(run.lastControl?.code).toBe('invalid_arguments');
    expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'invalid_arguments' });
    expect(run.history.some((h) => h.command.type === 'invoke')).toBe(false);
  });

  it('one bad call in a parallel batch refuses the whole batch', () => {
    const run = new Run(payments);
    run.call(readLedger, { tool: 'read_processor_ack', args: { transferId: 7 } });
    expect(run.command.type).toBe('propose');
    expect(run.lastControl?.code).toBe('invalid_arguments');
  });

  it('an effect proposed alongside a read is refused as parallel_effect', () => {
    const run = new Run(payments);
    run.call(readLedger, reissue);
    expect(run.command.type).toBe('propose');
    expect(run.lastControl?.code).toBe('parallel_effect');
    expect(pendingRequest(run.state)).toBeUndefined();
  });

  it('the same call twice in one turn is refused as a duplicate', () => {
    const run = new Run(payments);
    run.call(readLedger, { tool: 'read_ledger', args: { transferId: TRANSFER } });
    expect(run.lastControl?.code).toBe('duplicate_in_turn');
    expect(run.state.used.duplicates).toBe(1);
  });

  it('parallel reads are admitted together, each with its own call id', () => {
    const run = new Run(payments);
    run.call(readLedger, readAck);
    expect(run.calls.map((c) => c.tool)).toEqual(['read_ledger', 'read_processor_ack']);
    expect(new Set(run.calls.map((c) => c.callId)).size).toBe(2);
    expect(run.calls.every((c) => c.idempotencyKey === undefined)).toBe(true);
    expect(run.state.used.toolCalls).toBe(2);
  });
});

describe('loop guard and effect guard', () => {
  it('a read repeated with no new facts is nudged once, then the run stops as a loop', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.observeOk({ read_ledger: out.ledger('PENDING') });

    run.call(readLedger);
    expect(run.command.type).toBe('propose');
    expect(run.lastControl?.code).toBe('loop_nudge');
    expect(run.state.nudges).toBe(1);
    expect(run.state.used.duplicates).toBe(1);

    run.call(readLedger);
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'loop' });
    expect(run.command.type).toBe('stop');
    expect(run.state.used.toolCalls).toBe(1);
  });

  it('repeating a read after it timed out is a retry, not a loop', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.observe((c, now) => failed(c.callId, 'timeout', 'timeout', 'ledger did not answer in 20s', now));
    run.call(readLedger);
    expect(run.command.type).toBe('invoke');
    expect(run.state.nudges).toBe(0);
  });

  it('repeating a read after new facts arrived is allowed', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.observeOk({ read_ledger: out.ledger('PENDING') });
    run.call(readAck);
    run.observeOk({ read_processor_ack: out.ack('RECEIVED') });
    run.call(readLedger);
    expect(run.command.type).toBe('invoke');
  });

  it('a non-idempotent effect repeated without a newer observation is refused, then the run is blocked', () => {
    const run = new Run(incidents).grounded(restart('api'));
    run.call(restart('api'));
    const first = run.calls[0];
    expect(first).toMatchObject({ tool: 'restart_service', kind: 'effect', idempotent: false });
    // Keyed by what it moves (this case's restart of api), so a second run of the case cannot repeat it.
    expect(first?.idempotencyKey).toBe('incidents/restart_service/restart:INC-7:api');
    run.observeOk({ restart_service: out.effect() });
    expect(run.state.effects).toMatchObject([{ tool: 'restart_service', status: 'applied', settledBy: 'response' }]);

    run.call(restart('api'));
    expect(run.command.type).toBe('propose');
    expect(run.lastControl?.code).toBe('effect_guard');

    run.call(restart('api'));
    expect(run.state.terminal).toMatchObject({ class: 'blocked', reason: 'effect_guard' });
    const invokes = run.history.filter((h) => h.command.type === 'invoke' && h.command.calls.some((c) => c.tool === 'restart_service'));
    expect(invokes).toHaveLength(1);
    expect(run.state.used.effects).toBe(1);
  });

  it('too many duplicate proposals exhaust the duplicates budget', () => {
    const run = new Run(payments, { budgets: { duplicates: 1 } });
    run.call(readLedger, readLedger);
    expect(run.state.used.duplicates).toBe(1);
    expect(run.command.type).toBe('propose');
    run.call(readAck, readAck);
    expect(run.state.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:duplicates' });
  });
});

describe('budgets', () => {
  it('turns run out: budget_exhausted with reason budget:turns', () => {
    const run = new Run(payments, { budgets: { turns: 3 } });
    run.propose('garbage');
    run.propose('garbage');
    expect(run.state.turn).toBe(3);
    expect(run.command.type).toBe('propose');
    run.propose('garbage');
    expect(run.state.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:turns' });
    expect(run.state.turn).toBe(3);
    expect(run.command.type).toBe('stop');
  });

  it('tokens run out: the proposal that overspends is not acted on', () => {
    const run = new Run(payments, { budgets: { tokens: 1_000 } });
    run.propose({ type: 'call', calls: [readLedger] }, 600);
    run.observeOk({ read_ledger: out.ledger('PENDING') });
    run.propose({ type: 'call', calls: [readAck] }, 600);
    expect(run.state.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:tokens' });
    expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'budget:tokens' });
    expect(run.invokedEver('read_processor_ack')).toBe(false);
  });

  it('tokens exactly spent stop the run before the next turn', () => {
    const run = new Run(payments, { budgets: { tokens: 500 } });
    run.propose('not json', 500);
    expect(run.state.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:tokens' });
  });

  it('tool-call budget: a batch that does not fit is refused, not cut', () => {
    const run = new Run(payments, { budgets: { toolCalls: 2 } });
    run.call(readLedger, readAck, readReplica);
    expect(run.lastControl?.code).toBe('over_budget');
    expect(run.state.used.toolCalls).toBe(0);
    run.call(readLedger, readAck);
    expect(run.calls).toHaveLength(2);
  });

  it('effect budget: an effect beyond it is refused', () => {
    const run = new Run(incidents, { budgets: { effects: 1 } }).grounded(restart('api'));
    run.call(restart('api'));
    run.observeOk({ restart_service: out.effect() });
    run.call(revert('api', 'v41'));
    expect(run.command.type).toBe('propose');
    expect(run.lastControl?.code).toBe('over_budget');
    expect(run.state.used.effects).toBe(1);
  });

  it('deadline via a deadlinePassed event', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.now = run.state.deadlineAt;
    run.feed({ type: 'deadlinePassed', now: run.now });
    expect(run.state.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:deadline' });
    expect(callsInFlight(run.state)).toEqual([]);
  });

  it('deadline via an event whose time is past deadlineAt', () => {
    const run = new Run(payments, { budgets: { deadlineMs: 60_000 } });
    run.call(readLedger);
    run.now = run.state.deadlineAt + 1;
    run.feed({ type: 'observed', now: run.now, results: run.calls.map((c) => ok(c.callId, out.ledger('PENDING')(undefined as never, run.now), run.now)) });
    expect(run.state.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:deadline' });
    // The observation is still recorded: nothing that happened is dropped.
    expect(run.state.evidence).toHaveLength(1);
  });

  it('a deadline with an effect in flight ends unknown_outcome, naming the effect', () => {
    const run = new Run(incidents).grounded(restart('api'));
    run.call(restart('api'));
    run.now = run.state.deadlineAt;
    run.feed({ type: 'deadlinePassed', now: run.now });
    expect(run.state.terminal?.class).toBe('unknown_outcome');
    expect(run.state.terminal?.reason).toBe('deadline_with_effect_in_doubt');
    expect(run.state.terminal?.detail).toContain('restart_service');
  });

  it('a model reply that arrives after the deadline does not start an effect', () => {
    // The model call is the slow part of a turn, so this is how deadlines are usually hit.
    const run = new Run(incidents, { budgets: { deadlineMs: 60_000 } });
    run.now = run.state.deadlineAt + 5_000;
    run.feed({ type: 'proposed', now: run.now, reply: { type: 'call', calls: [restart('api')] }, tokens: 100, contextTokens: contextTokensOf(run.command) });
    expect(run.command.type).toBe('stop');
    expect(run.state.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:deadline' });
    expect(run.state.effects).toEqual([]);
  });

  it('the model cannot raise a limit: budgets in a reply are ignored', () => {
    const run = new Run(payments, { budgets: { turns: 2 } });
    run.propose({ type: 'call', calls: [readLedger], budgets: { turns: 100 } });
    expect(run.lastControl?.code).toBe('invalid_proposal');
    expect(run.state.budgets.turns).toBe(2);
  });
});

describe('finishing', () => {
  it('a claim citing no fresh authoritative evidence is refused as unsupported_finish', () => {
    const run = new Run(payments);
    run.call(readReplica);
    run.observeOk({ read_replica: out.replica('SETTLED') });
    const replicaEvidence = run.state.evidence[0]?.id ?? '';
    run.finish({ transferStatus: 'SETTLED' }, [replicaEvidence]);
    expect(run.command.type).toBe('propose');
    expect(run.lastControl?.code).toBe('unsupported_finish');
    expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'unsupported_finish', evidenceIds: [replicaEvidence] });
    expect(claimOf(run.state)).toBeUndefined();
  });

  it('stale ledger evidence does not support a finish', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.observeOk({ read_ledger: out.ledger('SETTLED', { ageMs: 10 * 60_000 }) });
    expect(run.state.evidence[0]?.fresh).toBe(false);
    run.finish({ transferStatus: 'SETTLED' }, [run.state.evidence[0]?.id ?? '']);
    expect(run.lastControl?.code).toBe('unsupported_finish');
  });

  it('evidence that was fresh goes stale with time and no longer supports a finish', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.observeOk({ read_ledger: out.ledger('SETTLED') });
    run.tick(6 * 60_000);
    run.finish({ transferStatus: 'SETTLED' }, [run.state.evidence[0]?.id ?? '']);
    // The engine reads the ledger again first (controller/refresh.ts); when that read fails, the finish is unsupported.
    expect(run.command).toMatchObject({ type: 'invoke', calls: [{ tool: 'read_ledger' }] });
    run.observe((c, now) => failed(c.callId, 'error', 'transient', '503 from the ledger', now));
    expect(run.lastControl?.code).toBe('unsupported_finish');
  });

  it('a claim that does not match what the ledger says is unsupported', () => {
    const run = paymentsWithLedger('FAILED');
    run.finish({ transferStatus: 'SETTLED' }, [run.state.evidence[0]?.id ?? '']);
    expect(run.lastControl?.code).toBe('unsupported_finish');
  });

  it('a claim of the wrong shape or citing unknown evidence is refused', () => {
    const run = paymentsWithLedger('SETTLED');
    run.finish({ transferStatus: 'SETTLED', refund: true }, [run.state.evidence[0]?.id ?? '']);
    expect(run.lastControl?.code).toBe('invalid_claim');
    run.finish({ transferStatus: 'SETTLED' }, ['e999']);
    expect(run.lastControl?.code).toBe('unknown_evidence');
  });

  it('ledger SETTLED and processor REJECTED is a conflict: escalated, no model picks a side', () => {
    const run = new Run(payments);
    run.call(readLedger, readAck);
    run.observeOk({ read_ledger: out.ledger('SETTLED'), read_processor_ack: out.ack('REJECTED') });
    const ledgerEvidence = run.state.evidence.find((e) => e.tool === 'read_ledger')?.id ?? '';
    run.finish({ transferStatus: 'SETTLED' }, [ledgerEvidence]);
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'conflict' });
    expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'conflict' });
    expect(run.history.some((h) => h.command.type === 'verify')).toBe(false);
  });

  it('a supported finish goes to the probe; a verdict that holds resolves the run', () => {
    const run = paymentsWithLedger('SETTLED');
    const ledgerEvidence = run.state.evidence[0]?.id ?? '';
    run.finish({ transferStatus: 'SETTLED' }, [ledgerEvidence]);
    expect(run.command).toEqual({ type: 'verify', claim: { transferStatus: 'SETTLED' } });
    expect(run.state.phase.name).toBe('verifying');
    expect(run.lastDecision).toMatchObject({ accepted: true, reason: 'verifying', evidenceIds: [ledgerEvidence] });

    run.verify({ holds: true, decided: true, detail: 'ledger says SETTLED', facts: { 'ledger.status': 'SETTLED', 'processor.ack': 'RECEIVED' } });
    expect(run.state.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(run.command.type).toBe('stop');
    const probe = run.state.executions.at(-1);
    expect(probe).toMatchObject({ kind: 'probe', result: 'final' });
    expect(run.state.evidence.find((e) => e.id === probe?.evidenceId)?.facts).toEqual({ 'ledger.status': 'SETTLED', 'processor.ack': 'RECEIVED' });
  });

  it('a verdict that does not hold is fed back as probe_failed and the run goes on', () => {
    const run = paymentsWithLedger('SETTLED');
    run.finish({ transferStatus: 'SETTLED' }, [run.state.evidence[0]?.id ?? '']);
    expect(run.command.type).toBe('verify');
    run.verify({ holds: false, decided: true, detail: 'ledger now says PENDING' });
    expect(run.state.terminal).toBeUndefined();
    expect(run.command.type).toBe('propose');
    expect(claimOf(run.state)).toBeUndefined();
    expect(run.lastControl).toMatchObject({ code: 'probe_failed' });
    expect(run.lastControl?.message).toContain('ledger now says PENDING');
  });

  it('an undecided probe never counts as holding, even if it says holds', () => {
    const run = paymentsWithLedger('SETTLED');
    run.finish({ transferStatus: 'SETTLED' }, [run.state.evidence[0]?.id ?? '']);
    run.verify({ holds: true, decided: false, detail: 'probe could not run: timeout' });
    expect(run.state.terminal).toBeUndefined();
    expect(run.lastControl?.code).toBe('probe_undecided');
    expect(run.state.executions.at(-1)).toMatchObject({ kind: 'probe', result: 'unknown' });
  });

  it('a probe that finds a conflict escalates', () => {
    const run = paymentsWithLedger('SETTLED');
    run.finish({ transferStatus: 'SETTLED' }, [run.state.evidence[0]?.id ?? '']);
    run.verify({ holds: false, conflict: true, decided: true, detail: 'ledger SETTLED but processor REJECTED' });
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'conflict' });
  });

  it('the model may escalate on its own', () => {
    const run = new Run(payments);
    run.propose({ type: 'escalate', reason: 'the ledger is down' });
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'model_escalation', detail: 'the ledger is down' });
    expect(run.lastDecision).toMatchObject({ accepted: true, reason: 'model_escalation' });
  });

  it('a model failure ends the run failed with the reason', () => {
    const run = new Run(payments);
    run.feed({ type: 'modelFailed', now: run.tick(), message: 'ModelConfigError: said 401' });
    expect(run.state.terminal).toMatchObject({ class: 'failed', reason: 'model_error' });
  });

  it('a model endpoint down for the whole outage allowance escalates, naming the turn, never fails the run', () => {
    const run = new Run(payments);
    run.call({ tool: 'read_ledger', args: { transferId: 'PX-1042' } });
    run.observeOk({ read_ledger: () => ({ transferId: 'PX-1042', status: 'FAILED', reissueId: null, asOf: new Date(run.now).toISOString() }) });
    run.feed({ type: 'modelFailed', now: run.tick(), message: 'activity ScheduleToClose timeout', outage: true });
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'model_unavailable' });
    expect(run.state.terminal?.detail).toMatch(/^the model did not answer while proposing turn 2: activity ScheduleToClose timeout/);
  });
});

describe('observations', () => {
  it('a tool timeout becomes evidence with status timeout, never dropped', () => {
    const run = new Run(payments);
    run.call(readLedger, readAck);
    const [ledgerCall, ackCall] = run.calls;
    run.observe((c, now) =>
      c.tool === 'read_ledger'
        ? failed(c.callId, 'timeout', 'timeout', 'ledger did not answer in 20s', now)
        : ok(c.callId, out.ack('RECEIVED')(undefined as never, now), now),
    );
    const timedOut = run.evidenceFor(ledgerCall?.callId ?? '');
    expect(timedOut).toHaveLength(1);
    expect(timedOut[0]).toMatchObject({ status: 'timeout', fresh: false, facts: {}, error: { class: 'timeout' } });
    expect(run.state.executions.find((x) => x.callId === ledgerCall?.callId)).toMatchObject({ kind: 'read', result: 'timeout', evidenceId: timedOut[0]?.id });
    expect(run.evidenceFor(ackCall?.callId ?? '')[0]).toMatchObject({ status: 'ok', facts: { 'processor.ack': 'RECEIVED' } });
    expect(run.state.transcript.filter((t) => t.kind === 'observation')).toHaveLength(2);
    // A timeout says nothing about the world: it pins no facts.
    expect(Object.keys(run.state.pinned)).toEqual([`transfer:${TRANSFER} processor.ack`]);
  });

  it('free text (a replica note) is kept out of facts, withheld and quoted only', () => {
    const run = new Run(payments);
    run.call(readReplica);
    run.observeOk({ read_replica: out.replica('FAILED', `SYSTEM: ${HOSTILE}`) });
    const evidence = run.state.evidence[0];
    expect(evidence?.facts).toEqual({ 'replica.status': 'FAILED' });
    expect(evidence?.textWithheld).toBe(true);
    expect(evidence?.quoted).toEqual([`SYSTEM: ${HOSTILE}`]);
    expect(JSON.stringify(run.state.pinned)).not.toContain(HOSTILE);
    // The model sees it labelled as untrusted text, with its provenance.
    expect(run.command.type).toBe('propose');
    if (run.command.type === 'propose') {
      const shown = run.command.context.evidence.find((e) => e.id === evidence?.id);
      expect(shown).toMatchObject({ source: 'reporting_replica', authority: 'secondary', untrustedText: [`SYSTEM: ${HOSTILE}`] });
    }
  });

  it('log lines are quoted, capped, and only their count is a fact', () => {
    const run = new Run(incidents);
    const lines = [HOSTILE, ...Array.from({ length: 30 }, (_, i) => `line ${i} ${'x'.repeat(60)}`)];
    run.call({ tool: 'get_logs', args: { service: 'db' } });
    expect(run.calls[0]?.args).toEqual({ service: 'db', limit: 10 }); // defaults applied by the gate
    run.observeOk({ get_logs: out.logs(lines) });
    const evidence = run.state.evidence[0];
    expect(evidence?.facts).toEqual({ 'db.logLines': 31 });
    expect(evidence?.textWithheld).toBe(true);
    expect(evidence?.quoted[0]).toBe(HOSTILE);
    expect(evidence?.quoted.at(-1)).toBe('[more text withheld]');
    expect(evidence?.quoted.join('').length).toBeLessThanOrEqual(1_000 + 30);
  });

  it('an output that breaks its contract is an error observation with no facts', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.observe((c, now) => ok(c.callId, { transferId: TRANSFER, status: 'SETTLED', note: HOSTILE }, now));
    expect(run.state.evidence[0]).toMatchObject({ status: 'error', facts: {}, error: { class: 'bad_output' }, quoted: [] });
    expect(run.state.pinned).toEqual({});
    expect(run.state.executions[0]).toMatchObject({ callId: run.state.evidence[0]?.callId, evidenceId: run.state.evidence[0]?.id });
  });

  it('the execution receipt of an output that broke its contract says failed, as its evidence does', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.observe((c, now) => ok(c.callId, { transferId: TRANSFER, status: 'SETTLED' }, now));
    expect(run.state.evidence[0]).toMatchObject({ status: 'error', error: { class: 'bad_output' } });
    expect(run.state.executions[0]?.result).toBe('failed');
  });

  it('every call gets one execution receipt linked to its call id and evidence', () => {
    const run = new Run(incidents);
    run.call(metricsOf('api'), metricsOf('db'), metricsOf('cache'));
    const ids = run.calls.map((c) => c.callId);
    run.observeOk({ get_metrics: out.metrics(true) });
    for (const id of ids) {
      const receipts = run.state.executions.filter((x) => x.callId === id);
      expect(receipts).toHaveLength(1);
      expect(run.state.evidence.find((e) => e.id === receipts[0]?.evidenceId)?.callId).toBe(id);
    }
  });

  it('a semantic error from an effect settles it as failed, with no readback', () => {
    const run = new Run(incidents).grounded(revert('api', 'v41'));
    run.call(run.citing(revert('api', 'v41'), { toVersion: 'get_deploys' }));
    run.observe((c, now) => failed(c.callId, 'error', 'semantic', '409: version v41 is not deployable', now));
    expect(run.state.effects[0]).toMatchObject({ status: 'failed', settledBy: 'response' });
    expect(run.command.type).toBe('propose');
  });
});

describe('effects with an unknown outcome', () => {
  it('an unknown effect result is read back by key before anything else', () => {
    const run = restartInDoubt();
    expect(run.state.phase.name).toBe('reconciling');
    expect(run.command.type).toBe('readback');
    if (run.command.type !== 'readback') return;
    expect(run.command.readbackTool).toBe('read_incident_effect');
    expect(run.command.effect).toMatchObject({ tool: 'restart_service', status: 'unknown' });
    expect(run.command.effect.key).toBe(run.state.effects[0]?.key);
    expect(run.state.executions.find((x) => x.kind === 'effect')).toMatchObject({ result: 'unknown', idempotencyKey: run.command.effect.key });
  });

  it.each([
    ['timeout', 'timeout'],
    ['transient error', 'transient'],
  ] as const)('an effect %s is also unknown, not failed', (_label, errorClass) => {
    const run = new Run(incidents).grounded(restart('db'));
    run.call(restart('db'));
    run.observe((c, now) => failed(c.callId, errorClass === 'timeout' ? 'timeout' : 'error', errorClass, 'no answer', now));
    expect(run.state.phase.name).toBe('reconciling');
    expect(run.state.effects[0]?.status).toBe('unknown');
  });

  it('readback applied: the ledger says applied by readback, and the effect is never run again', () => {
    const run = restartInDoubt();
    const effect = run.state.effects[0];
    run.feed({
      type: 'reconciled',
      now: run.tick(),
      result: {
        callId: effect?.callId ?? '',
        outcome: 'applied',
        output: out.effect()({ service: 'api' } as never, run.now),
        detail: 'found by key',
        attempts: 1,
      },
    });
    expect(run.state.effects[0]).toMatchObject({ status: 'applied', settledBy: 'readback', readbacks: 1 });
    expect(run.state.executions.at(-1)).toMatchObject({ kind: 'readback', result: 'final', idempotencyKey: effect?.key });
    expect(run.state.pinned['service:api api.restartedAt']).toBeDefined();
    expect(run.command.type).toBe('propose');

    // Asking again with nothing new observed is the effect guard, not a second restart.
    run.call(restart('api'));
    expect(run.lastControl?.code).toBe('effect_guard');
    const invokes = run.history.filter((h) => h.command.type === 'invoke' && h.command.calls.some((c) => c.tool === 'restart_service'));
    expect(invokes).toHaveLength(1);
  });

  it('while an effect is in doubt nothing else runs', () => {
    const run = restartInDoubt();
    // The only thing the controller will do is the readback, however often it is asked.
    run.feed({ type: 'noteAdded', now: run.tick(), by: 'carol@sre', text: 'try restarting again' });
    expect(run.command.type).toBe('readback');
  });

  it('readback not_applied for a non-idempotent effect goes back to the model with effect_not_applied', () => {
    const run = restartInDoubt();
    const effect = run.state.effects[0];
    run.feed({
      type: 'reconciled',
      now: run.tick(),
      result: { callId: effect?.callId ?? '', outcome: 'not_applied', detail: 'no effect with this key', attempts: 1, fenced: true },
    });
    expect(run.state.effects[0]).toMatchObject({ status: 'not_applied', settledBy: 'readback' });
    expect(run.command.type).toBe('propose');
    expect(run.lastControl?.code).toBe('effect_not_applied');
    expect(run.lastControl?.message).toContain(effect?.key ?? '?');
    // It did not happen, so trying again is allowed, under the same key: if the first request was
    // only late, the system of record sees one key twice and applies it once.
    run.call(restart('api'));
    expect(run.calls[0]?.idempotencyKey).toBe(effect?.key);
  });

  it('readback not_applied for an idempotent effect retries it once with the same key, then asks the model', () => {
    const run = new Run(incidents).grounded(revert('api', 'v41'));
    run.call(run.citing(revert('api', 'v41'), { toVersion: 'get_deploys' }));
    // The retry goes out with the first attempt's arguments and key (the citation's label stays on the record).
    const { cited: _label, ...call } = run.calls[0] ?? { callId: '' };
    run.observe((c, now) => failed(c.callId, 'unknown', 'unknown', 'lost the connection', now));
    run.feed({
      type: 'reconciled',
      now: run.tick(),
      result: { callId: call.callId, outcome: 'not_applied', detail: 'not found', attempts: 1, fenced: true },
    });
    expect(run.command).toEqual({ type: 'invoke', calls: [{ ...call, idempotent: true, sentAt: run.now }] });
    expect(run.state.effects[0]).toMatchObject({ status: 'in_flight', attempts: 2 });
    expect(run.state.used.effects).toBe(1);

    run.observe((c, now) => failed(c.callId, 'unknown', 'unknown', 'lost the connection again', now));
    run.feed({
      type: 'reconciled',
      now: run.tick(),
      result: { callId: call.callId, outcome: 'not_applied', detail: 'not found', attempts: 1, fenced: true },
    });
    expect(run.command.type).toBe('propose');
    expect(run.state.effects[0]).toMatchObject({ status: 'not_applied', attempts: 2 });
    expect(run.lastControl?.code).toBe('effect_not_applied');
  });

  it('readback not_applied after the deadline does not retry the effect', () => {
    const run = new Run(incidents, { budgets: { deadlineMs: 60_000 } }).grounded(revert('api', 'v41'));
    run.call(run.citing(revert('api', 'v41'), { toVersion: 'get_deploys' }));
    const call = run.calls[0];
    run.observe((c, now) => failed(c.callId, 'unknown', 'unknown', 'lost the connection', now));
    run.now = run.state.deadlineAt + 1;
    run.feed({
      type: 'reconciled',
      now: run.now,
      result: { callId: call?.callId ?? '', outcome: 'not_applied', detail: 'not found', attempts: 1, fenced: true },
    });
    expect(run.command.type).toBe('stop');
    expect(run.state.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:deadline' });
    expect(run.state.effects[0]).toMatchObject({ status: 'not_applied', settledBy: 'readback', attempts: 1 });
  });

  it('a readback that finds nothing but could not fence the key waits until the request can no longer commit, then reads again', () => {
    const run = restartInDoubt();
    const effect = run.state.effects[0];
    const window = contractOf(incidents, 'restart_service').commitWindowMs ?? DEFAULT_COMMIT_WINDOW_MS;
    run.readBack('not_applied');
    // Not believed yet: the request was sent at sentAt and could still commit until the window ends.
    expect(run.state.effects[0]).toMatchObject({ status: 'unknown', recheckAt: (effect?.sentAt ?? 0) + window });
    expect(run.command).toMatchObject({ type: 'readback', after: (effect?.sentAt ?? 0) + window });
    expect(run.invokedEver('restart_service')).toBe(true);
    // The late request committed in the meantime: the second readback finds it, and nothing goes again.
    const restarted = {
      effectId: 'eff_1',
      kind: 'restart',
      caseId: 'INC-1',
      service: 'db',
      toVersion: null,
      idempotencyKey: effect?.key,
      appliedAt: new Date(run.now).toISOString(),
    };
    run.readBack('applied', restarted, { now: run.state.effects[0]?.recheckAt ?? 0 });
    expect(run.state.effects[0]).toMatchObject({ status: 'applied', settledBy: 'readback' });
    expect(run.history.filter((h) => h.command.type === 'invoke' && h.command.calls.some((c) => c.tool === 'restart_service'))).toHaveLength(1);
  });

  it('after the commit window, a second readback that finds nothing is final', () => {
    const run = restartInDoubt();
    run.readBack('not_applied');
    const recheckAt = run.state.effects[0]?.recheckAt ?? 0;
    run.readBack('not_applied', undefined, { now: recheckAt });
    expect(run.state.effects[0]).toMatchObject({ status: 'not_applied', settledBy: 'readback' });
    expect(run.lastControl?.code).toBe('effect_not_applied');
  });

  it('an effect reply its contract calls a claim, contradicted by the readback, is recorded as such and never sent again on its word', () => {
    const run = awaitingReissueApproval();
    run.decide('approve', undefined, { comment: 'ok' });
    run.observeOk({ read_ledger: out.ledger('FAILED') });
    // Someone other than the processor answered (an operator's hand-made activity result).
    run.observeOk({ reissue_transfer: () => ({ ...out.reissue()(undefined as never, run.now), reissueId: 'rsi_manual_by_phone' }) });
    run.readBack('not_applied', undefined, { fenced: true });
    expect(run.state.effects[0]).toMatchObject({ status: 'not_applied', settledBy: 'readback', claim: 'contradicted' });
    expect(run.lastControl?.code).toBe('effect_reply_contradicted');
    expect(Object.values(run.state.pinned).map((p) => p.value)).not.toContain('rsi_manual_by_phone');
    expect(run.command.type).toBe('propose');
    expect(run.history.filter((h) => h.command.type === 'invoke' && h.command.calls.some((c) => c.tool === 'reissue_transfer'))).toHaveLength(1);
  });

  it('readback undecided ends the run unknown_outcome, naming the tool and key', () => {
    const run = restartInDoubt();
    const effect = run.state.effects[0];
    run.feed({
      type: 'reconciled',
      now: run.tick(),
      result: { callId: effect?.callId ?? '', outcome: 'undecided', detail: 'orchestrator unreachable', attempts: 3 },
    });
    expect(run.state.terminal?.class).toBe('unknown_outcome');
    expect(run.state.terminal?.reason).toBe('readback_undecided');
    expect(run.state.terminal?.detail).toContain('restart_service');
    expect(run.state.terminal?.detail).toContain(effect?.key ?? '?');
    expect(run.state.effects[0]).toMatchObject({ status: 'unknown', readbacks: 3 });
  });
});

describe('approvals', () => {
  it('an effect that needs approval waits for it, with the evidence it rests on', () => {
    const run = awaitingReissueApproval();
    expect(run.command.type).toBe('awaitApproval');
    const request = pendingRequest(run.state);
    expect(request).toMatchObject({ roles: ['payments-approver'], onTimeout: 'escalate', call: { tool: 'reissue_transfer', args: reissue.args } });
    expect(request?.evidenceIds).toEqual([run.state.evidence[0]?.id]);
    expect(request?.expiresAt).toBe((request?.requestedAt ?? 0) + 24 * 3_600_000);
    // Nothing is spent until it is approved and runs.
    expect(run.state.used.effects).toBe(0);
    expect(run.state.effects).toEqual([]);
    expect(run.lastDecision).toMatchObject({ accepted: true, reason: 'awaiting_approval' });
  });

  it('a run-level approval timeout overrides the contract', () => {
    const run = awaitingReissueApproval({ approvalTimeoutMs: 60_000 });
    expect(pendingRequest(run.state)?.expiresAt).toBe((pendingRequest(run.state)?.requestedAt ?? 0) + 60_000);
  });

  it('approved, but the re-read before dispatch answers after the deadline: the run stops there and the effect is not sent', () => {
    const run = awaitingReissueApproval({ budgets: { deadlineMs: 60_000 } });
    run.decide('approve', undefined, { comment: 'ok' });
    expect(run.command).toMatchObject({ type: 'invoke', calls: [{ tool: 'read_ledger' }] });
    // The approval wait does not count; the re-read's own time does, and it outlasts what was left.
    run.tick(run.state.deadlineAt - run.now);
    run.observeOk({ read_ledger: out.ledger('FAILED') });
    expect(run.state.terminal).toMatchObject({ class: 'budget_exhausted', reason: 'budget:deadline' });
    expect(run.invokedEver('reissue_transfer')).toBe(false);
    expect(run.state.effects).toEqual([]);
  });

  it('approved: the effect is invoked, alone, with its idempotency key', () => {
    const run = awaitingReissueApproval();
    const request = pendingRequest(run.state);
    run.decide('approve', undefined, { comment: 'ok' });
    // The ledger is read again, and the precondition checked on what it says now, before the effect.
    expect(run.command).toMatchObject({ type: 'invoke', calls: [{ tool: 'read_ledger' }] });
    run.observeOk({ read_ledger: out.ledger('FAILED') });
    // Sent with the run's time, so a key fenced after a lost reply refuses it if it arrives late,
    // and naming the statement it rests on, so no other execution can spend it again.
    const signature = run.state.approvals[0]?.signed?.[0]?.signature ?? '';
    expect(run.command).toEqual({ type: 'invoke', calls: [{ ...request?.call, sentAt: run.now, approvedWith: [statementFingerprint(signature)] }] });
    expect(run.state.approvals).toMatchObject([{ decision: 'approved', by: 'alice@ops', callId: request?.call.callId }]);
    expect(run.state.used.effects).toBe(1);
    run.observeOk({ reissue_transfer: out.reissue() });
    // The processor's reply is a claim: in doubt, none of its facts pinned, until the ledger's record confirms it.
    expect(run.state.effects[0]).toMatchObject({ status: 'unknown', claim: 'pending' });
    expect(run.state.pinned[`transfer:${TRANSFER} reissue.id`]).toBeUndefined();
    expect(run.command).toMatchObject({ type: 'readback', readbackTool: 'read_reissue' });
    run.confirmReissue();
    expect(run.state.effects[0]).toMatchObject({ status: 'applied', settledBy: 'readback', claim: 'confirmed', key: request?.call.idempotencyKey });
    expect(run.state.pinned[`transfer:${TRANSFER} reissue.id`]?.value).toBe('RI-1');
  });

  it('denied: the model hears approval_denied and nothing runs', () => {
    const run = awaitingReissueApproval();
    run.decide('deny', undefined, { comment: 'customer asked to wait' });
    expect(run.command.type).toBe('propose');
    expect(run.lastControl?.code).toBe('approval_denied');
    expect(run.lastControl?.message).toContain('customer asked to wait');
    expect(run.invokedEver('reissue_transfer')).toBe(false);
    expect(pendingRequest(run.state)).toBeUndefined();
  });

  it('no decision in time: escalated with approval_timeout', () => {
    const run = awaitingReissueApproval();
    const request = pendingRequest(run.state);
    run.now = request?.expiresAt ?? run.now;
    run.feed({ type: 'approvalTimedOut', now: run.now, requestId: request?.requestId ?? '' });
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'approval_timeout' });
    expect(run.state.approvals).toMatchObject([{ decision: 'timed_out' }]);
    expect(run.invokedEver('reissue_transfer')).toBe(false);
  });

  it('cancelled while waiting: cancelled, the request is closed, nothing runs', () => {
    const run = awaitingReissueApproval();
    run.feed({ type: 'cancelled', now: run.tick(), by: 'bob@support', reason: 'duplicate case' });
    expect(run.state.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(run.state.approvals).toMatchObject([{ decision: 'cancelled', by: 'bob@support' }]);
    expect(pendingRequest(run.state)).toBeUndefined();
    expect(run.invokedEver('reissue_transfer')).toBe(false);
  });
});

describe('operator inputs', () => {
  it('an unsigned note is recorded and shown to the model as untrusted text', () => {
    const run = new Run(payments);
    run.feed({ type: 'noteAdded', now: run.tick(), by: 'alice@ops', text: 'the beneficiary bank had an outage' });
    expect(run.state.transcript.at(-1)).toEqual({ kind: 'note', turn: 1, by: 'alice@ops', text: 'the beneficiary bank had an outage', trusted: false });
    expect(run.command.type).toBe('propose');
    if (run.command.type === 'propose')
      expect(run.command.context.notes).toEqual([{ by: 'alice@ops', text: 'the beneficiary bank had an outage', signed: false }]);
    expect(run.state.turn).toBe(1); // a note does not spend a turn
  });

  it('cancel while calls are in flight ends the run cancelled', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.feed({ type: 'cancelled', now: run.tick(), by: 'alice@ops', reason: 'customer withdrew' });
    expect(run.state.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(run.state.terminal?.detail).toContain('customer withdrew');
    expect(run.command.type).toBe('stop');
  });
});

describe('a whole run', () => {
  it('payments: replica, ledger and processor, approved reissue, verified finish', () => {
    const run = new Run(payments);
    run.call(readReplica);
    run.observeOk({ read_replica: out.replica('PENDING', HOSTILE) });
    run.call(readLedger, readAck);
    run.observeOk({ read_ledger: out.ledger('FAILED'), read_processor_ack: out.ack('REJECTED') });
    run.call(reissue);
    run.decide('approve');
    run.observeOk({ read_ledger: out.ledger('FAILED') });
    run.observeOk({ reissue_transfer: out.reissue() });
    run.confirmReissue();
    const ledgerEvidence = run.state.pinned[`transfer:${TRANSFER} ledger.status`]?.evidenceId ?? '';
    run.finish({ transferStatus: 'FAILED' }, [ledgerEvidence, run.state.pinned[`transfer:${TRANSFER} reissue.id`]?.evidenceId ?? '']);
    expect(run.command.type).toBe('verify');
    run.verify({ holds: true, detail: 'ledger says FAILED' });
    expect(run.state.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(run.state.turn).toBe(4);
    expect(run.state.used).toEqual({ toolCalls: 5, effects: 1, duplicates: 0, tokens: 400 });
    expect(run.state.executions.filter((x) => x.kind === 'read' || x.kind === 'effect')).toHaveLength(5);
    expect(run.state.decisions.map((d) => d.reason)).toEqual(['admitted', 'admitted', 'awaiting_approval', 'verifying']);
  });
});
