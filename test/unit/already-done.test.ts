// Work done by an earlier run of the case (a reset, a delete and start again, a second start):
// the domain's judgeDone names it (`doneEarlier`), the finish goes to the probe, and a probe that
// holds ends the run `resolved/already_done` naming the earlier effect. Evidence alone, or a
// probe that does not hold, never ends it so. (The live version: test/integration/reset.test.ts.)
import { describe, expect, it } from 'vitest';
import { incidents } from '../../domains/incidents/domain.js';
import { payments } from '../../domains/payments/domain.js';
import { iso, metricsOf, out, readLedger, Run } from '../support/driver.js';

const ledgerReissued = (reissueId: string | null) => (_: never, now: number) => ({ ...out.ledger('FAILED')(_, now), reissueId });

describe('a case already done by an earlier run', () => {
  it('payments: the ledger records the reissue, the probe confirms it: already_done naming it', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.observeOk({ read_ledger: ledgerReissued('rsi_earlier') });
    const ledger = run.state.evidence.find((e) => e.tool === 'read_ledger')?.id ?? '';
    run.finish({ transferStatus: 'FAILED' }, [ledger]);
    expect(run.command).toEqual({ type: 'verify', claim: { transferStatus: 'FAILED' } });
    expect(run.state.decisions.at(-1)).toMatchObject({ accepted: true, reason: 'verifying:already_done' });

    run.verify({
      holds: true,
      decided: true,
      detail: 'ledger says FAILED, reissued as rsi_earlier',
      facts: { 'ledger.status': 'FAILED', 'ledger.reissueId': 'rsi_earlier' },
    });
    expect(run.state.terminal).toMatchObject({ class: 'resolved', reason: 'already_done' });
    expect(run.state.terminal?.detail).toContain('already reissued as rsi_earlier by an earlier run');
    expect(run.state.effects).toEqual([]);
  });

  it('payments: never reissued by anyone, the finish is refused as before', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.observeOk({ read_ledger: ledgerReissued(null) });
    const ledger = run.state.evidence.find((e) => e.tool === 'read_ledger')?.id ?? '';
    run.finish({ transferStatus: 'FAILED' }, [ledger]);
    expect(run.command.type).toBe('propose');
    expect(run.state.transcript.at(-1)).toMatchObject({ kind: 'control', code: 'unsupported_finish' });
  });

  it('payments: a probe that does not hold is fed back, never already_done', () => {
    const run = new Run(payments);
    run.call(readLedger);
    run.observeOk({ read_ledger: ledgerReissued('rsi_earlier') });
    run.finish({ transferStatus: 'FAILED' }, [run.state.evidence[0]?.id ?? '']);
    run.verify({ holds: false, decided: true, detail: 'ledger says FAILED and shows no reissue of it' });
    expect(run.state.terminal).toBeUndefined();
    expect(run.state.transcript.at(-1)).toMatchObject({ kind: 'control', code: 'probe_failed' });
  });

  it('incidents: healthy after a restart keyed for this case: already_done; keyed for another case: refused', () => {
    const healthyAfter = (key: string) => (args: { service: string }, now: number) => ({
      ...out.metrics(true)(args, now),
      lastEffect: { kind: 'restart', effectId: 'eff_1', idempotencyKey: key, appliedAt: iso(now - 60_000) },
    });
    const mine = new Run(incidents, { caseId: 'INC-7' });
    mine.call(metricsOf('cache'));
    mine.observeOk({ get_metrics: healthyAfter('incidents/restart_service/restart:INC-7:cache') });
    mine.finish({ remediated: 'cache' }, [mine.state.evidence[0]?.id ?? '']);
    mine.verify({ holds: true, decided: true, detail: 'all services healthy' });
    expect(mine.state.terminal).toMatchObject({ class: 'resolved', reason: 'already_done' });
    expect(mine.state.terminal?.detail).toContain('restart eff_1 under key incidents/restart_service/restart:INC-7:cache');

    // The same service restarted for an earlier incident is not this case's remediation.
    const other = new Run(incidents, { caseId: 'INC-8' });
    other.call(metricsOf('cache'));
    other.observeOk({ get_metrics: healthyAfter('incidents/restart_service/restart:INC-7:cache') });
    other.finish({ remediated: 'cache' }, [other.state.evidence[0]?.id ?? '']);
    expect(other.command.type).toBe('propose');
    expect(other.state.transcript.at(-1)).toMatchObject({ kind: 'control', code: 'unsupported_finish' });
  });

  it('incidents: restarts and reverts are keyed by the case, the service and the action', () => {
    const run = new Run(incidents, { caseId: 'INC-7' });
    run.call(metricsOf('cache'));
    run.observeOk({ get_metrics: out.metrics(false, 97) });
    run.call({ tool: 'restart_service', args: { service: 'cache' } });
    expect(run.command).toMatchObject({
      type: 'invoke',
      calls: [{ tool: 'restart_service', idempotencyKey: 'incidents/restart_service/restart:INC-7:cache' }],
    });
  });
});
