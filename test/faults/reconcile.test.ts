// Effects whose reply is lost or garbled after they committed: each is read back by its
// idempotency key before anything else happens, and never sent twice.
import { describe, expect, it } from 'vitest';
import { useAgentHarness, runToEnd, uniqueCase } from '../support/agent.js';
import { seedIncident } from '../../domains/world/seeds.js';

// A scripted model, so the effect's call id (and with it its idempotency key) is known:
// metrics c1 -> e2 (the restart's precondition); restart c3 -> evidence e4 (unknown) ->
// readback e5; metrics c6 -> e7.
const replies = [
  { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'cache' } }] },
  { type: 'call', calls: [{ tool: 'restart_service', args: { service: 'cache' } }] },
  { type: 'call', calls: [{ tool: 'get_metrics', args: { service: 'cache' } }] },
  { type: 'finish', outcome: 'resolved', claim: { remediated: 'cache' }, evidence: ['e7'] },
];

describe('unknown outcomes are reconciled, never retried blind', () => {
  const h = useAgentHarness({ toolTimeoutMs: 1_000 });

  for (const mode of ['commit_then_500', 'commit_then_drop', 'commit_then_hang'] as const) {
    it(`${mode}: reconciled to applied, exactly one effect`, async () => {
      const caseId = uniqueCase('INC');
      await seedIncident(h.world, caseId);
      await h.world.injectFault({ op: 'incidents.restart', key: caseId, mode });
      const { result, view } = await runToEnd(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies } });

      expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
      expect(result.effects).toEqual([expect.objectContaining({ status: 'applied', settledBy: 'readback', attempts: 1, readbacks: 1 })]);
      expect(await h.world.effects({ key: caseId })).toHaveLength(1);
      expect(await h.world.calls({ key: caseId, op: 'incidents.restart' })).toHaveLength(1);
      const execution = view.state.executions.find((x) => x.kind === 'effect');
      expect(execution).toMatchObject({ result: 'unknown', idempotencyKey: result.effects[0]?.key });
    });
  }

  it('a readback that cannot decide ends unknown_outcome, names the effect, and retries nothing', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    // Restarts are keyed by the case, the service and the action (domains/incidents/domain.ts).
    const key = `incidents/restart_service/restart:${caseId}:cache`;
    await h.world.injectFault({ op: 'incidents.restart', key: caseId, mode: 'commit_then_500' });
    await h.world.injectFault({ op: 'incidents.effect_readback', key, mode: 'error500', times: -1 });
    const { result, view } = await runToEnd(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies } });

    expect(result.terminal).toMatchObject({ class: 'unknown_outcome', reason: 'readback_undecided' });
    expect(result.terminal.detail).toContain('restart_service');
    expect(result.terminal.detail).toContain(key);
    expect(result.effects).toEqual([expect.objectContaining({ status: 'unknown', key })]);
    expect(await h.world.calls({ key: caseId, op: 'incidents.restart' })).toHaveLength(1);
    expect(view.state.turn).toBe(2); // turn 1 read the metrics the restart needs
  });
});
