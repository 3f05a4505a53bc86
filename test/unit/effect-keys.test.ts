// One key per intended effect. A restart whose outcome was unknown is read back as not applied,
// and the model asks for it again: the second dispatch goes out under the first one's key, so a
// first request that was only late (it commits after the readback) is applied once by the
// system of record.
import { describe, expect, it } from 'vitest';
import { mcpIncidents } from '../../domains/mcp-incidents/domain.js';
import { failed, iso, ok, Run } from '../support/driver.js';

const exhausted = (now: number) => ({ service: 'db', errorRate: 0.4, latencyP99Ms: 2_000, memoryPct: 97, healthy: false, asOf: iso(now) });

function restartReadBackAsNotApplied(): { run: Run; firstKey: string } {
  const run = new Run(mcpIncidents, { caseId: 'INC-9', budgets: { effects: 3 } });
  run.call({ tool: 'get_metrics', args: { service: 'db' } });
  run.observe((c, now) => ok(c.callId, exhausted(now), now));
  run.call({ tool: 'restart_service', args: { service: 'db' } });
  const [first] = run.calls;
  run.observe((c, now) => failed(c.callId, 'unknown', 'unknown', 'timed out after the request was sent', now));
  expect(run.command.type).toBe('readback');
  run.feed({
    type: 'reconciled',
    now: run.tick(),
    result: { callId: first?.callId ?? '', outcome: 'not_applied', detail: 'no effect under the key', attempts: 1, fenced: true },
  });
  expect(run.state.effects).toEqual([expect.objectContaining({ status: 'not_applied', settledBy: 'readback' })]);
  return { run, firstKey: first?.idempotencyKey ?? '' };
}

describe('the key of an effect proposed again after a not-applied readback', () => {
  it('is the first dispatch key', () => {
    const { run, firstKey } = restartReadBackAsNotApplied();
    run.call({ tool: 'restart_service', args: { service: 'db' } });
    const [again] = run.calls;
    expect(again?.callId).not.toBe(run.state.effects[0]?.callId);
    expect(again?.idempotencyKey).toBe(firstKey);
  });

  it('is a new one for other arguments', () => {
    const { run, firstKey } = restartReadBackAsNotApplied();
    run.call({ tool: 'get_metrics', args: { service: 'api' } });
    run.observe((c, now) => ok(c.callId, { ...exhausted(now), service: 'api' }, now));
    run.call({ tool: 'restart_service', args: { service: 'api' } });
    expect(run.calls[0]?.idempotencyKey).not.toBe(firstKey);
  });
});
