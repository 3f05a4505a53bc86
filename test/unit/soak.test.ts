// A domain's soak (Domain.soak): resolved means the condition stayed false for a whole window after
// the fix, not that one probe held once. The controller waits out the window (the workflow sleeps on
// a durable timer), asks the probe again over it, and takes a re-fire as the domain says.
import { describe, expect, it } from 'vitest';
import { payments } from '../../domains/payments/domain.js';
import type { Domain, SoakRule } from '../../workflows/contract.js';
import { validateDomain } from '../../workflows/domain-checks.js';
import { out, Run } from '../support/driver.js';
import { claimOf } from '../support/phase.js';

function settledWith(soak: SoakRule): Run {
  const domain: Domain = { ...payments, soak } as Domain;
  const run = new Run(domain);
  run.call({ tool: 'read_ledger', args: { transferId: run.state.caseId } });
  run.observeOk({ read_ledger: out.ledger('SETTLED') });
  run.finish({ transferStatus: 'SETTLED' }, [run.state.evidence[0]?.id ?? '']);
  return run;
}

describe('a soak after the probe holds', () => {
  it('waits the window, then resolves only once the probe holds over it', () => {
    const run = settledWith({ windowMs: 60_000, onRefire: 'resume' });
    const deadline = run.state.deadlineAt;
    run.verify({ holds: true, detail: 'ledger says SETTLED' });
    // Not resolved yet: the next command waits out the window and asks again over it.
    expect(run.state.terminal).toBeUndefined();
    const soak = claimOf(run.state)?.soak;
    expect(soak?.until).toBe((soak?.from ?? 0) + 60_000);
    expect(run.command).toEqual({ type: 'verify', claim: { transferStatus: 'SETTLED' }, soak });
    expect(run.lastControl?.code).toBe('soaking');
    // The run's clock is paused for the window, as for an approval.
    expect(run.state.deadlineAt).toBe(deadline + 60_000);

    run.now = soak?.until ?? run.now;
    run.verify({ holds: true, detail: 'ledger says SETTLED; quiet' });
    expect(run.state.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(run.state.terminal?.detail).toContain('held again after a soak of 60 s');
  });

  it('a re-fire during the window puts the run back to work when the domain says resume', () => {
    const run = settledWith({ windowMs: 30_000, onRefire: 'resume' });
    run.verify({ holds: true, detail: 'ledger says SETTLED' });
    run.verify({ holds: false, decided: true, detail: 'the alert fired again at 12:03' });
    expect(run.state.terminal).toBeUndefined();
    expect(run.lastControl?.code).toBe('refired_during_soak');
    expect(run.command.type).toBe('propose');
    expect(claimOf(run.state)).toBeUndefined();
  });

  it('a re-fire during the window escalates when the domain says escalate', () => {
    const run = settledWith({ windowMs: 30_000, onRefire: 'escalate' });
    run.verify({ holds: true, detail: 'ledger says SETTLED' });
    run.verify({ holds: false, decided: true, detail: 'the alert fired again at 12:03' });
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'refired_during_soak' });
  });

  it('a domain without a soak resolves on the first probe that holds, as before', () => {
    const run = new Run(payments);
    run.call({ tool: 'read_ledger', args: { transferId: run.state.caseId } });
    run.observeOk({ read_ledger: out.ledger('SETTLED') });
    run.finish({ transferStatus: 'SETTLED' }, [run.state.evidence[0]?.id ?? '']);
    run.verify({ holds: true, detail: 'ledger says SETTLED' });
    expect(run.state.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
  });

  it('a soak that is no real wait, or says nothing about a re-fire, is refused when the domain is defined', () => {
    const problems = validateDomain({ ...payments, soak: { windowMs: 10, onRefire: 'retry' } } as unknown as Domain);
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^soak: windowMs/), expect.stringMatching(/^soak: onRefire/)]));
  });
});
