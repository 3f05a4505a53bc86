import { describe, expect, it } from 'vitest';
import { stateQuery } from '../../workflows/messages.js';
import { useAgentHarness, runToEnd, startRun, uniqueCase } from '../support/agent.js';
import { seedIncident } from '../../domains/world/seeds.js';

const metrics = (...services: string[]) => ({ type: 'call', calls: services.map((service) => ({ tool: 'get_metrics', args: { service } })) });

describe('incident remediation (real dev server and world)', () => {
  const h = useAgentHarness();

  it('refuses a finish that claims a remediation nobody made, then restarts the cache and resolves', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    // The trace of seed 001: a schema violation, a premature "resolved", then the real fix.
    const replies = [
      metrics('api', 'db', 'cache'), // c1..c3 -> e4..e6
      { type: 'call', calls: [{ tool: 'get_logs', args: { service: 7 } }] }, // rejected by the gate
      { type: 'call', calls: [{ tool: 'get_logs', args: { service: 'cache', limit: 5 } }] }, // c7 -> e8
      { type: 'finish', outcome: 'resolved', claim: { remediated: 'cache' }, evidence: ['e8'] }, // nothing was restarted: refused
      { type: 'call', calls: [{ tool: 'restart_service', args: { service: 'cache' } }] }, // c9 -> e10
      { type: 'finish', outcome: 'resolved', claim: { remediated: 'cache' }, evidence: ['e10'] },
    ];
    const { result, view } = await runToEnd(h, { domain: 'incidents', caseId, model: { adapter: 'scripted', replies } });

    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    const controls = view.state.transcript.flatMap((t) => (t.kind === 'control' ? [t.code] : []));
    expect(controls).toEqual(['invalid_arguments', 'unsupported_finish']);
    // Checked against what was done, the false finish never got as far as the live probe.
    const probes = view.state.evidence.filter((e) => e.tool === 'probe');
    expect(probes.map((p) => p.facts['verify.healthy'])).toEqual([true]);
    expect(result.effects).toHaveLength(1);
    expect(result.effects[0]).toMatchObject({ tool: 'restart_service', status: 'applied' });
    const restarts = (await h.world.effects({ key: caseId })).filter((e) => e.kind === 'restart');
    expect(restarts).toHaveLength(1);
    // The schema violation never reached the world.
    const logCalls = (await h.world.calls({ key: caseId })).filter((c) => c.op === 'incidents.logs');
    expect(logCalls).toHaveLength(1);
  });

  it('the rules model diagnoses a bad deploy, reverts it and is confirmed by the probe', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId, { faulty: { service: 'api', fault: 'bad_deploy' } });
    const { result } = await runToEnd(h, { domain: 'incidents', caseId, model: { adapter: 'rules' } });
    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(result.effects.map((e) => [e.tool, e.status])).toEqual([['revert_deploy', 'applied']]);
  });

  it('answers the state query in every phase it passes through', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    await h.world.injectFault({ op: 'incidents.metrics', key: caseId, mode: 'slow', delayMs: 500, times: -1 });
    await h.world.injectFault({ op: 'incidents.verify', key: caseId, mode: 'slow', delayMs: 500, times: -1 });
    const handle = await startRun(h, { domain: 'incidents', caseId, model: { adapter: 'rules' } });
    const phases = new Set<string>();
    const polling = (async () => {
      for (;;) {
        const view = await handle.query(stateQuery);
        phases.add(view.state.phase.name);
        expect(view.budgetLeft.turns).toBeGreaterThanOrEqual(0);
        if (view.state.terminal) return;
        await new Promise((r) => setTimeout(r, 40));
      }
    })();
    await handle.result();
    await polling;
    expect([...phases]).toEqual(expect.arrayContaining(['acting', 'verifying', 'terminal']));
  });
});
