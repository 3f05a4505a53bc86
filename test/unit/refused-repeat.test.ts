// A model that insists on a call the gate refused (its precondition failed) spends no more
// turns on it than one that repeats a read: one nudge, then the run ends escalated/loop.
import { describe, expect, it } from 'vitest';
import { mcpIncidents } from '../../domains/mcp-incidents/domain.js';
import { iso, ok, Run } from '../support/driver.js';

const healthy = (now: number) => ({ service: 'db', errorRate: 0.001, latencyP99Ms: 80, memoryPct: 30, healthy: true, asOf: iso(now) });
const restartDb = { tool: 'restart_service', args: { service: 'db' } };

function refusedOnce(): Run {
  const run = new Run(mcpIncidents, { caseId: 'INC-9', budgets: { turns: 10 } });
  run.call({ tool: 'get_metrics', args: { service: 'db' } });
  run.observe((c, now) => ok(c.callId, healthy(now), now));
  run.call(restartDb);
  expect(run.state.transcript.at(-1)).toMatchObject({ kind: 'control', code: 'precondition_failed' });
  return run;
}

describe('a refused call proposed again unchanged', () => {
  it('is nudged once, then ends the run escalated/loop', () => {
    const run = refusedOnce();
    run.call(restartDb);
    expect(run.state.transcript.at(-1)).toMatchObject({ kind: 'control', code: 'loop_nudge' });
    run.call(restartDb);
    expect(run.state.terminal).toMatchObject({ class: 'escalated', reason: 'loop' });
    expect(run.state.effects).toEqual([]);
  });

  it('is judged again once something new is observed', () => {
    const run = refusedOnce();
    run.call({ tool: 'get_logs', args: { service: 'db' } });
    run.observe((c, now) => ok(c.callId, { service: 'db', lines: ['WARN slow query'], asOf: iso(now) }, now));
    run.call(restartDb);
    expect(run.state.transcript.at(-1)).toMatchObject({ kind: 'control', code: 'precondition_failed' });
  });
});
