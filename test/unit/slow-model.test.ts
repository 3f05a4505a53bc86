// A slow model in the pure controller: its turns take longer than the evidence stays fresh. The
// engine re-reads what went stale under a proposal before judging it (controller/refresh.ts),
// and a fact made fresh again with the same value is progress, so a fix refused for staleness
// can be proposed again after a re-read; asking again with nothing re-read is still a loop.
import { describe, expect, it } from 'vitest';
import { incidents } from '../../domains/incidents/domain.js';
import type { Domain } from '../../workflows/contract.js';
import { failed, iso, metricsOf, ok, out, restart, Run } from '../support/driver.js';

const METRICS_MAX_AGE_MS = 2 * 60_000;

/** An incidents run that read db's metrics (memory exhausted), then thought for longer than they stay fresh. */
function slowAfterMetrics(): Run {
  const run = new Run(incidents);
  run.call(metricsOf('db'));
  run.observeOk({ get_metrics: out.metrics(false, 97) });
  run.tick(METRICS_MAX_AGE_MS + 30_000);
  return run;
}

/** The world answering with metrics that lag by more than they may: stale as they arrive. */
const laggingMetrics = (now: number) => ({ service: 'db', errorRate: 0.2, latencyP99Ms: 4_000, memoryPct: 97, healthy: false, asOf: iso(now - 10 * 60_000) });

describe('refresh before refusing', () => {
  it('a restart proposed on metrics that went stale re-reads them first, then is judged on the fresh answer', () => {
    const run = slowAfterMetrics();
    run.call(restart('db'));
    expect(run.command).toMatchObject({ type: 'invoke', calls: [{ tool: 'get_metrics', args: { service: 'db' }, kind: 'read' }] });
    expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'refreshing', by: 'model' });
    expect(run.lastControl?.message).toMatch(/re-reads get_metrics\(\{"service":"db"\}\)/);
    const turn = run.state.turn;
    run.observeOk({ get_metrics: out.metrics(false, 97) });
    // The same proposal, no new model turn: the restart goes out on the re-read.
    expect(run.state.turn).toBe(turn);
    expect(run.command).toMatchObject({ type: 'invoke', calls: [{ tool: 'restart_service', args: { service: 'db' } }] });
    expect(run.lastDecision).toMatchObject({ accepted: true, reason: 'admitted' });
    // The re-read counts against the budgets like any call.
    expect(run.state.used.toolCalls).toBe(3);
  });

  it("a revert that cites the deploy record it read before going slow is judged on the re-read's answer, cited by the same reference", () => {
    const run = new Run(incidents);
    run.call(metricsOf('api'), { tool: 'get_deploys', args: { service: 'api' } });
    run.observeOk({ get_metrics: out.metrics(false, 40), get_deploys: out.deploys() });
    const cited = run.ref('get_deploys', 'v41');
    run.tick(METRICS_MAX_AGE_MS + 30_000);
    run.call({ tool: 'revert_deploy', args: { service: 'api', toVersion: 'v41' }, sources: { toVersion: cited } });
    expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'refreshing' });
    run.observeOk({ get_metrics: out.metrics(false, 40) });
    // The metrics went stale, not the deploy record: the citation still names a fresh fact.
    expect(run.command).toMatchObject({
      type: 'invoke',
      calls: [{ tool: 'revert_deploy', cited: { toVersion: `fact api.previousVersion (${cited.split('.')[0]})` } }],
    });
  });

  it('a citation of a read that was re-read under the proposal points at the new answer, which must still hold the value', () => {
    // A deploy record that stays fresh as briefly as the metrics, so one slow turn makes both stale.
    const briefDeploys = { ...incidents, tools: incidents.tools.map((t) => (t.name === 'get_deploys' ? { ...t, maxAgeMs: METRICS_MAX_AGE_MS } : t)) } as Domain;
    for (const [answer, admitted] of [
      [out.deploys(), true],
      [(a: never, now: number) => ({ ...(out.deploys()(a, now) as object), previous: 'v40' }), false],
    ] as const) {
      const run = new Run(briefDeploys);
      run.call(metricsOf('api'), { tool: 'get_deploys', args: { service: 'api' } });
      run.observeOk({ get_metrics: out.metrics(false, 40), get_deploys: out.deploys() });
      const cited = run.ref('get_deploys', 'v41');
      run.tick(METRICS_MAX_AGE_MS + 30_000);
      run.call({ tool: 'revert_deploy', args: { service: 'api', toVersion: 'v41' }, sources: { toVersion: cited } });
      expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'refreshing' });
      run.observeOk({ get_metrics: out.metrics(false, 40), get_deploys: answer });
      expect(run.invokedEver('revert_deploy')).toBe(admitted);
      if (admitted) expect(run.calls[0]?.cited?.toVersion).not.toContain(`(${cited.split('.')[0]})`);
      else expect(run.lastControl?.message).toMatch(/is "v40", not "v41"/);
    }
  });

  it('refreshes once per proposal: when the re-read is stale too, the proposal is refused', () => {
    const run = slowAfterMetrics();
    run.call(restart('db'));
    run.observe((c, now) => ok(c.callId, laggingMetrics(now), now));
    expect(run.command.type).toBe('propose');
    // The re-read is stale as it arrives: the precondition has no fresh metrics of db to go on.
    expect(run.lastControl?.code).toBe('precondition_failed');
    expect(run.lastControl?.message).toMatch(/no longer fresh/);
    expect(run.state.effects).toEqual([]);
  });

  it('does not refresh when the tool-call budget has no room for the re-read and the effect', () => {
    const run = new Run(incidents, { budgets: { toolCalls: 2 } });
    run.call(metricsOf('db'));
    run.observeOk({ get_metrics: out.metrics(false, 97) });
    run.tick(METRICS_MAX_AGE_MS + 30_000);
    run.call(restart('db'));
    expect(run.lastControl?.code).toBe('precondition_failed');
    expect(run.invokedEver('restart_service')).toBe(false);
  });
});

describe('freshness regained is progress', () => {
  /** Refused for staleness (the engine's own re-read met a 503): the run is proposing again. */
  function refusedForStaleness(): Run {
    const run = slowAfterMetrics();
    run.call(restart('db'));
    run.observe((c, now) => failed(c.callId, 'error', 'transient', '503 from the metrics store', now));
    expect(run.lastControl?.code).toBe('precondition_failed');
    return run;
  }

  it('the same restart after a fresh re-read with the same values is admitted', () => {
    const run = refusedForStaleness();
    run.call(metricsOf('db'));
    run.observeOk({ get_metrics: out.metrics(false, 97) });
    run.call(restart('db'));
    expect(run.command).toMatchObject({ type: 'invoke', calls: [{ tool: 'restart_service' }] });
  });

  it('the same restart again with nothing re-read is still a loop', () => {
    const run = refusedForStaleness();
    run.call(restart('db'));
    expect(run.lastControl?.code).toBe('loop_nudge');
    run.call(restart('db'));
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'loop' });
    expect(run.invokedEver('restart_service')).toBe(false);
  });

  it('a changed value is progress too, as before', () => {
    const run = refusedForStaleness();
    run.call(metricsOf('db'));
    run.observeOk({ get_metrics: out.metrics(false, 99) });
    run.call(restart('db'));
    expect(run.command).toMatchObject({ type: 'invoke', calls: [{ tool: 'restart_service' }] });
  });
});

describe('a finish on evidence that went stale', () => {
  it('is judged again on the ledger read anew, citing the new answer', async () => {
    const { payments } = await import('../../domains/payments/domain.js');
    const { readLedger, TRANSFER } = await import('../support/driver.js');
    const run = new Run(payments);
    run.call(readLedger);
    run.observeOk({ read_ledger: out.ledger('SETTLED') });
    const cited = run.state.evidence[0]?.id ?? '';
    run.tick(6 * 60_000); // the ledger's answers are fresh for five minutes
    run.finish({ transferStatus: 'SETTLED' }, [cited]);
    expect(run.command).toMatchObject({ type: 'invoke', calls: [{ tool: 'read_ledger', args: { transferId: TRANSFER } }] });
    run.observeOk({ read_ledger: out.ledger('SETTLED') });
    expect(run.command.type).toBe('verify');
    const verdict = run.lastDecision;
    expect(verdict).toMatchObject({ accepted: true, reason: 'verifying' });
    expect(verdict?.evidenceIds).not.toContain(cited);
  });
});
