// State this build did not write (controller/load-state.ts): a run of the release before carries
// its state over at continue-as-new, and a worker still on that release answers state queries
// with it. Version 3 kept the phase as a name and its data in optional fields beside it; it must
// load as exactly the state this build would have, in every phase, and nothing older may.
import { describe, expect, it } from 'vitest';
import { incidents } from '../../domains/incidents/domain.js';
import { payments } from '../../domains/payments/domain.js';
import { loadState, type RunState } from '../../workflows/controller/index.js';
import { Run, failed, metricsOf, out, readLedger, reissue, restart } from '../support/driver.js';
import { asVersion3 } from '../support/phase.js';

/** States in every phase a run can carry or answer from, each as this build has it. */
function statesInEveryPhase(): RunState[] {
  const seen: RunState[] = [];
  const approval = new Run(payments);
  seen.push(approval.state); // proposing
  approval.call(readLedger);
  seen.push(approval.state); // acting
  approval.observeOk({ read_ledger: out.ledger('FAILED') });
  approval.call(reissue);
  approval.loadApprovers();
  seen.push(approval.state); // awaiting_approval
  approval.decide('approve', undefined, { comment: 'ok' });
  seen.push(approval.state); // rereading
  const doubt = new Run(incidents).grounded(restart('api'));
  doubt.call(restart('api'));
  doubt.observe((c, now) => failed(c.callId, 'unknown', 'unknown', 'connection reset after the request was sent', now));
  seen.push(doubt.state); // reconciling
  doubt.feed({ type: 'cancelled', now: doubt.tick(), by: 'oncall@ops', reason: 'wrong incident' });
  seen.push(doubt.state); // cancelling
  doubt.readBack('applied');
  seen.push(doubt.state); // terminal
  const settled = new Run(payments);
  settled.call(readLedger);
  settled.observeOk({ read_ledger: out.ledger('SETTLED') });
  settled.finish({ transferStatus: 'SETTLED' }, [settled.state.evidence[0]?.id ?? '']);
  seen.push(settled.state); // verifying
  const slow = new Run(incidents);
  slow.call(metricsOf('db'));
  slow.observeOk({ get_metrics: out.metrics(false, 97) });
  slow.tick(10 * 60_000);
  slow.call(restart('db'));
  seen.push(slow.state); // refreshing: the metrics went stale under the restart
  return seen;
}

describe('loading state an earlier release wrote', () => {
  const states = statesInEveryPhase();

  it('reaches the phases it means to', () => {
    expect(states.map((s) => s.phase.name)).toEqual([
      'proposing',
      'acting',
      'awaiting_approval',
      'rereading',
      'reconciling',
      'cancelling',
      'terminal',
      'verifying',
      'refreshing',
    ]);
  });

  it.each(states.map((s) => [s.phase.name, s] as const))('version 3 in %s loads as this build has it', (_name, state) => {
    expect(loadState(asVersion3(state))).toEqual({ ok: true, state });
    expect(loadState(state)).toEqual({ ok: true, state });
  });

  it('version 2 of engine 5 loads too; older engines and versions are refused as older rule sets', () => {
    const state = states[2] as RunState;
    const v2 = { ...asVersion3(state), version: 2, guardVersion: 2, engine: 5 };
    expect(loadState(v2)).toEqual({ ok: true, state });
    expect(loadState({ ...v2, engine: 4 })).toMatchObject({ ok: false, olderRuleSet: true });
    expect(loadState({ ...asVersion3(state), version: 1 })).toMatchObject({ ok: false, olderRuleSet: true });
    expect(loadState({ ...asVersion3(state), version: 9 })).toMatchObject({ ok: false });
  });

  it('a version 3 state whose phase data does not fit is refused, not guessed at', () => {
    const state = states[2] as RunState;
    const { pendingApproval: _gone, ...withoutRequest } = asVersion3(state);
    expect(loadState(withoutRequest)).toMatchObject({ ok: false });
  });
});
