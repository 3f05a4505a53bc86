// A cancel that settles (every new run's, from the project's signal or Temporal's own request):
// an effect in flight or in doubt is read back by key before the run stops, the terminal says
// how it ended, and nothing is sent again. Cancels without `settle` (runs recorded before it)
// keep stopping at once: test/unit/controller.test.ts covers those.
import { describe, expect, it } from 'vitest';
import { incidents } from '../../domains/incidents/domain.js';
import { payments } from '../../domains/payments/domain.js';
import type { RunEvent } from '../../workflows/controller/events.js';
import { Run, failed, out, readLedger, reissue, restart, revert } from '../support/driver.js';
import { callsInFlight, cancellingOf } from '../support/phase.js';

const cancel = (run: Run, by = 'oncall@ops'): RunEvent => ({ type: 'cancelled', now: run.tick(), by, reason: 'wrong incident' });

function inDoubt(call: { tool: string; args: unknown }): Run {
  const run = new Run(incidents).grounded(call);
  // A revert's target cites the deploy record's previous version.
  run.call(call.tool === 'revert_deploy' ? run.citing(call, { toVersion: 'get_deploys' }) : call);
  run.observe((c, now) => failed(c.callId, 'unknown', 'unknown', 'connection reset after the request was sent', now));
  expect(run.command.type).toBe('readback');
  return run;
}

describe('a cancel that settles', () => {
  it('with nothing in doubt stops at once, cancelled, and says who asked', () => {
    const run = new Run(incidents);
    run.feed(cancel(run));
    expect(run.state.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel', detail: 'cancelled by oncall@ops: wrong incident' });
    expect(run.command.type).toBe('stop');
  });

  it('with an effect in doubt reads it back first, then ends cancelled saying it was applied', () => {
    const run = inDoubt(restart('api'));
    run.feed(cancel(run));
    expect(run.state.terminal).toBeUndefined();
    expect(cancellingOf(run.state)).toMatchObject({ by: 'oncall@ops' });
    expect(run.command).toMatchObject({ type: 'readback', readbackTool: 'read_incident_effect' });
    const effect = run.state.effects[0];
    run.feed({
      type: 'reconciled',
      now: run.tick(),
      result: { callId: effect?.callId ?? '', outcome: 'applied', output: out.effect()({ service: 'api' } as never, run.now), detail: 'found', attempts: 1 },
    });
    expect(run.state.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(run.state.terminal?.detail).toContain(`restart_service (key ${effect?.key}) applied (read back)`);
    expect(run.state.effects[0]).toMatchObject({ status: 'applied', settledBy: 'readback', readbacks: 1 });
    expect(run.state.executions.at(-1)).toMatchObject({ kind: 'readback', result: 'final' });
  });

  it('never sends an effect again, even one its contract would retry after not_applied', () => {
    const run = inDoubt(revert('api', 'v41'));
    run.feed(cancel(run));
    const effect = run.state.effects[0];
    run.feed({
      type: 'reconciled',
      now: run.tick(),
      result: { callId: effect?.callId ?? '', outcome: 'not_applied', detail: 'not found', attempts: 1, fenced: true },
    });
    expect(run.state.terminal).toMatchObject({ class: 'cancelled' });
    expect(run.state.terminal?.detail).toContain('revert_deploy');
    expect(run.state.terminal?.detail).toContain('not applied (read back)');
    expect(run.state.effects[0]).toMatchObject({ status: 'not_applied', attempts: 1 });
    expect(run.history.filter((h) => h.command.type === 'invoke' && h.command.calls.some((c) => c.tool === 'revert_deploy'))).toHaveLength(1);
  });

  it('a readback that cannot decide ends unknown_outcome, naming the effect', () => {
    const run = inDoubt(restart('api'));
    run.feed(cancel(run));
    const effect = run.state.effects[0];
    run.feed({
      type: 'reconciled',
      now: run.tick(),
      result: { callId: effect?.callId ?? '', outcome: 'undecided', detail: 'readback failed: 500', attempts: 3 },
    });
    expect(run.state.terminal).toMatchObject({ class: 'unknown_outcome', reason: 'cancelled_with_effect_in_doubt' });
    expect(run.state.terminal?.detail).toContain(`restart_service (key ${effect?.key})`);
    expect(run.state.terminal?.detail).toContain('oncall@ops');
    expect(run.state.effects[0]).toMatchObject({ status: 'unknown', readbacks: 3 });
  });

  it('an effect admitted but not yet sent is read back too, not called "in doubt" blindly', () => {
    const run = new Run(incidents).grounded(restart('api'));
    run.call(restart('api'));
    expect(run.state.effects[0]?.status).toBe('in_flight');
    run.feed(cancel(run));
    expect(callsInFlight(run.state)).toEqual([]);
    expect(run.command.type).toBe('readback');
    const effect = run.state.effects[0];
    run.feed({
      type: 'reconciled',
      now: run.tick(),
      result: { callId: effect?.callId ?? '', outcome: 'not_applied', detail: 'not found', attempts: 1, fenced: true },
    });
    expect(run.state.terminal).toMatchObject({ class: 'cancelled' });
  });

  it('while it reads back, a second cancel and the deadline change nothing', () => {
    const run = inDoubt(restart('api'));
    run.feed(cancel(run));
    run.feed(cancel(run, 'temporal-cancel'));
    run.now = run.state.deadlineAt + 1;
    run.feed({ type: 'deadlinePassed', now: run.now });
    expect(run.state.terminal).toBeUndefined();
    expect(cancellingOf(run.state)?.by).toBe('oncall@ops');
    expect(run.command.type).toBe('readback');
  });

  it('closes a pending approval as cancelled, by whoever asked', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.observeOk({ read_ledger: out.ledger('FAILED') });
    run.call(reissue);
    expect(run.state.phase.name).toBe('awaiting_approval');
    run.feed(cancel(run, 'temporal-cancel'));
    expect(run.state.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(run.state.approvals).toEqual([expect.objectContaining({ decision: 'cancelled', by: 'temporal-cancel' })]);
  });
});
