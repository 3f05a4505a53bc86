// Evidence observed before an effect on its subject is no grounds for another effect on it:
// a restart changes what "memory exhausted" described, however fresh that reading still is by
// the clock. Nor is evidence read before the effect settled (ToolContract.settleMs; here a
// minute, shorter than the run's deadline, so the run lives to see it settle).
import { describe, expect, it } from 'vitest';
import { mcpIncidents } from '../../domains/mcp-incidents/domain.js';
import type { Domain } from '../../workflows/contract.js';
import { iso, ok, Run } from '../support/driver.js';

const exhausted = (now: number) => ({ service: 'db', errorRate: 0.4, latencyP99Ms: 2_000, memoryPct: 97, healthy: false, asOf: iso(now) });
const restarted = (now: number) => ({ effectId: 'fx-1', service: 'db', appliedAt: iso(now) });
const logs = (now: number) => ({ service: 'db', lines: ['INFO restarted'], asOf: iso(now) });
const SETTLE_MS = 60_000;
const settlesInAMinute = {
  ...mcpIncidents,
  tools: mcpIncidents.tools.map((t) => (t.name === 'restart_service' ? { ...t, settleMs: SETTLE_MS } : t)),
} as Domain;

function restartedOnce(): Run {
  const run = new Run(settlesInAMinute, { caseId: 'INC-9', budgets: { effects: 3 } });
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
    run.tick(SETTLE_MS);
    run.call({ tool: 'restart_service', args: { service: 'db' } });
    // Not the restart: the engine re-reads the metrics the first restart made stale (and the
    // logs read before it settled).
    expect(run.calls.map((c) => c.tool)).toEqual(['get_metrics', 'get_logs']);
    expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'refreshing' });
    // The service is healthy now: the same proposal, judged again, is refused; nothing else ran.
    run.observeOk({
      get_metrics: (_: never, now: number) => ({ ...exhausted(now), memoryPct: 40, healthy: true }),
      get_logs: (_: never, now: number) => logs(now),
    });
    expect(run.command.type).toBe('propose');
    expect(run.lastControl).toMatchObject({ code: 'precondition_failed' });
    expect(run.state.effects).toHaveLength(1);
  });

  it('metrics read after the restart settled are grounds again', () => {
    const run = restartedOnce();
    run.tick(SETTLE_MS);
    run.call({ tool: 'get_metrics', args: { service: 'db' } });
    run.observe((c, now) => ok(c.callId, { ...exhausted(now), memoryPct: 98 }, now));
    run.call({ tool: 'restart_service', args: { service: 'db' } });
    expect(run.command.type).toBe('invoke');
  });

  it('metrics read after the restart but before it settled are not: a second restart is refused until then, and not on them after', () => {
    const run = restartedOnce();
    run.call({ tool: 'get_metrics', args: { service: 'db' } });
    run.observe((c, now) => ok(c.callId, { ...exhausted(now), memoryPct: 98 }, now)); // a lagging reading
    run.call({ tool: 'restart_service', args: { service: 'db' } });
    expect(run.lastControl).toMatchObject({ code: 'effect_settling' });
    // Once settled, the lagging reading is still no grounds: the engine reads again itself, and the fresh answer decides.
    run.tick(SETTLE_MS);
    run.call({ tool: 'restart_service', args: { service: 'db' } });
    expect(run.calls.map((c) => c.tool)).toEqual(['get_metrics', 'get_logs']);
    run.observeOk({
      get_metrics: (_: never, now: number) => ({ ...exhausted(now), memoryPct: 35, healthy: true }),
      get_logs: (_: never, now: number) => logs(now),
    });
    expect(run.lastControl).toMatchObject({ code: 'precondition_failed' });
    expect(run.state.effects).toHaveLength(1);
  });
});
