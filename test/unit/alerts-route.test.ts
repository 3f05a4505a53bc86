// The alerts runbook in the pure controller (shape workflow: the route decides every step). An
// execution of an alert case that starts again (a reset, a TerminateExisting start) finds the
// case's own earlier restart in the orchestrator's record, whatever domain's key it carries, and
// finishes on it instead of escalating "nothing to remediate"; and an escalation lifts the
// group's silence first, so the alert pages the person it is handed to.
import { describe, expect, it } from 'vitest';
import { alerts } from '../../domains/alerts/domain.js';
import { effectKey } from '../../workflows/public.js';
import { iso, out, Run } from '../support/driver.js';
import { claimOf } from '../support/phase.js';

const CASE = 'INC-7-ag0123456789ab';
const silence = (_: never, now: number) => ({ silenceId: 's-1', state: 'active', endsAt: iso(now + 900_000), matchers: ['case_id="INC-7"'] });
const expired = (_: never, now: number) => ({ silenceId: 's-1', state: 'expired', endsAt: iso(now) });

/** Every service healthy; api's last effect, if given, the record's key. */
function healthy(lastEffectKey?: string) {
  return (args: { service: string }, now: number) => ({
    ...(out.metrics(true)(args as never, now) as object),
    ...(lastEffectKey && args.service === 'api'
      ? { lastEffect: { kind: 'restart', effectId: 'fx-9', idempotencyKey: lastEffectKey, appliedAt: iso(now - 60_000) } }
      : {}),
  });
}

/** The run up to its first decision on the services: the silence is taken, then the metrics read. */
function started(metrics: ReturnType<typeof healthy>): Run {
  const run = new Run(alerts, { caseId: CASE, shape: 'workflow' });
  for (let step = 0; step < 6 && run.command.type === 'invoke'; step++) {
    const tools = run.calls.map((c) => c.tool);
    if (tools.includes('silence_alert_group')) run.observeOk({ silence_alert_group: silence });
    else if (tools.includes('get_metrics')) run.observeOk({ get_metrics: metrics });
    else break;
  }
  return run;
}

describe('an alert case run again', () => {
  it("finds the case's own restart by the alerts domain's key and finishes on it, instead of escalating", () => {
    const run = started(healthy(effectKey('alerts', 'restart_service', `restart:${CASE}:api`)));
    // The route lifts the silence before the finish, as after a remediation of its own.
    expect(run.calls.map((c) => c.tool)).toEqual(['expire_silence']);
    run.observeOk({ expire_silence: expired });
    // The finish goes to the probe as work an earlier run did: nothing is restarted again.
    expect(run.command.type).toBe('verify');
    expect(claimOf(run.state)?.doneEarlier).toMatch(/api already remediated by an earlier run: restart fx-9 under key alerts\/restart_service\//);
    expect(run.invokedEver('restart_service')).toBe(false);
  });

  it("another case's restart is not this case's", () => {
    const run = started(healthy(effectKey('alerts', 'restart_service', 'restart:INC-7-agffffffffffff:api')));
    expect(run.calls.map((c) => c.tool)).toEqual(['expire_silence']);
    run.observeOk({ expire_silence: expired });
    expect(run.state.terminal).toMatchObject({ class: 'escalated' });
  });

  it('an escalation lifts the silence first', () => {
    const run = started(healthy());
    expect(run.calls.map((c) => c.tool)).toEqual(['expire_silence']);
    expect(run.lastDecision).toMatchObject({ by: 'route' });
    run.observeOk({ expire_silence: expired });
    expect(run.state.terminal).toMatchObject({ class: 'escalated' });
    expect(run.state.effects.map((e) => [e.tool, e.status])).toEqual([
      ['silence_alert_group', 'applied'],
      ['expire_silence', 'applied'],
    ]);
  });
});
