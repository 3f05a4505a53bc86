// Evidence observed before an effect on its subject is no grounds for another effect on it:
// a restart changes what "memory exhausted" described, however fresh that reading still is by
// the clock.
import { describe, expect, it } from 'vitest';
import { mcpIncidents } from '../../domains/mcp-incidents/domain.js';
import { iso, ok, Run } from '../support/driver.js';

const exhausted = (now: number) => ({ service: 'db', errorRate: 0.4, latencyP99Ms: 2_000, memoryPct: 97, healthy: false, asOf: iso(now) });
const restarted = (now: number) => ({ effectId: 'fx-1', service: 'db', appliedAt: iso(now) });
const logs = (now: number) => ({ service: 'db', lines: ['INFO restarted'], asOf: iso(now) });

function restartedOnce(): Run {
  const run = new Run(mcpIncidents, { caseId: 'INC-9', budgets: { effects: 3 } });
  run.call({ tool: 'get_metrics', args: { service: 'db' } });
  run.observe((c, now) => ok(c.callId, exhausted(now), now));
  run.call({ tool: 'restart_service', args: { service: 'db' } });
  expect(run.command.type).toBe('invoke');
  run.observe((c, now) => ok(c.callId, restarted(now), now));
  expect(run.state.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied' })]);
  // Something new is observed, so the effect guard (same call, nothing new) does not decide.
  run.call({ tool: 'get_logs', args: { service: 'db' } });
  run.observe((c, now) => ok(c.callId, logs(now), now));
  return run;
}

describe('grounds for an effect', () => {
  it('a second restart is never judged on the metrics read before the first: they are read again first, and decide', () => {
    const run = restartedOnce();
    run.call({ tool: 'restart_service', args: { service: 'db' } });
    // Not the restart: the engine re-reads the metrics the first restart made stale.
    expect(run.command).toMatchObject({ type: 'invoke', calls: [{ tool: 'get_metrics', args: { service: 'db' } }] });
    expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'refreshing' });
    // The service is healthy now: the same proposal, judged again, is refused; nothing else ran.
    run.observe((c, now) => ok(c.callId, { ...exhausted(now), memoryPct: 40, healthy: true }, now));
    expect(run.command.type).toBe('propose');
    expect(run.lastControl).toMatchObject({ code: 'precondition_failed' });
    expect(run.state.effects).toHaveLength(1);
  });

  it('metrics read after the restart are grounds again', () => {
    const run = restartedOnce();
    run.call({ tool: 'get_metrics', args: { service: 'db' } });
    run.observe((c, now) => ok(c.callId, { ...exhausted(now), memoryPct: 98 }, now));
    run.call({ tool: 'restart_service', args: { service: 'db' } });
    expect(run.command.type).toBe('invoke');
  });
});
