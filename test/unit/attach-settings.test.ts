// Whoever starts a case first chooses its input, and a later start attaches only when the
// settings it asked for are the run's. A setting the comparison leaves out is one a stranger
// chooses for the operator's run while `agent start` reports "attached ... with the same
// settings": a model queue they poll makes them the run's model (a react model's reply is not
// sealed, and it can say it used no tokens), a team names whose cap is charged. So every field
// of RunInput is either compared here or named below with the reason it is not, and a new
// field fails this file until someone decides which.
import { describe, expect, it } from 'vitest';
import { settingsDiff } from '../../client/start-run.js';
import { caseDifference, StartSettings, startSettingsOf } from '../../client/start-settings.js';
import { RunInput } from '../../workflows/run-input.js';

const base: RunInput = { domain: 'payments', caseId: 'PX-1', model: { adapter: 'rules' } };

/** Two values of each compared field, the first the attacker's run, the second the operator's start. */
const compared: Record<string, [Partial<RunInput>, Partial<RunInput>, string]> = {
  model: [{ model: { adapter: 'custom', name: 'mallory' } }, {}, 'model: run has custom {"name":"mallory"}, this start asked for rules'],
  budgets: [{ budgets: { tokens: 1e9 } }, {}, 'budgets.tokens: run has 1000000000, this start asked for domain default'],
  approvers: [{ approvers: ['mallory@evil'] }, {}, 'approvers: run has [mallory@evil], this start asked for directory default'],
  effects: [{ effects: ['reissue_transfer'] }, { effects: 'none' }, 'effects: run has [reissue_transfer], this start asked for none'],
  approvalTimeoutMs: [{ approvalTimeoutMs: 5_000 }, {}, 'approval timeout: run has 5000 ms, this start asked for contract default'],
  modelOutageMs: [{ modelOutageMs: 86_400_000 }, {}, 'model outage allowance: run has 86400000 ms, this start asked for the default'],
  shape: [{ shape: 'hybrid' }, {}, 'shape: run has hybrid, this start asked for react'],
  context: [{ context: { strategy: 'full' } }, {}, 'context strategy: run has full, this start asked for the domain default'],
  team: [{ team: 'other-team' }, {}, 'team: run has other-team, this start asked for the default team'],
  modelQueue: [{ modelQueue: 'mallory-models' }, {}, "model queue: run has mallory-models, this start asked for the run's own queue"],
};

/** Fields of RunInput a start is deliberately not compared on, and why. */
const notCompared: Record<string, string> = {
  domain: 'with the case it names the workflow id; compared on its own (caseDifference, below), as the run found under the id',
  caseId: 'with the domain it names the workflow id; compared on its own (caseDifference, below)',
  start: 'who signed the start is not a setting (each start signs anew)',
  request: "a signed note, signed anew by each start; it is trusted only by its key's roles in the directory",
  continueAsNewAfterEvents: 'when the history rolls over: changes neither what the run may do nor who pays',
};

describe('the settings an attach is compared on', () => {
  it('every RunInput field is compared or named as not compared', () => {
    expect(Object.keys(RunInput.shape).sort()).toEqual([...Object.keys(compared), ...Object.keys(notCompared)].sort());
  });

  it.each(Object.entries(compared))('a run started with another %s is a conflict, named', (_field, [theirs, ours, difference]) => {
    const existing = RunInput.parse({ ...base, ...theirs });
    const requested = RunInput.parse({ ...base, ...ours });
    expect(settingsDiff(existing, requested)).toEqual([difference]);
    expect(settingsDiff(existing, existing)).toEqual([]);
    // The memo holds them too, and reads back as what was written (the schema is strict).
    expect(StartSettings.parse(startSettingsOf(existing))).toEqual(startSettingsOf(existing));
  });

  it('team, model queue and context each count, alone or together', () => {
    const attackers = RunInput.parse({ ...base, team: 'billing', modelQueue: 'mallory-models', context: { strategy: 'full', window: 200 } });
    expect(settingsDiff(attackers, base)).toEqual([
      'context strategy: run has full, this start asked for the domain default',
      'context window: run has 200, this start asked for the domain default',
      'team: run has billing, this start asked for the default team',
      "model queue: run has mallory-models, this start asked for the run's own queue",
    ]);
    // A team or a queue the operator names is compared too, not only set against absent.
    expect(settingsDiff({ ...base, team: 'billing' }, { ...base, team: 'payments-ops' })).toEqual(['team: run has billing, this start asked for payments-ops']);
    expect(settingsDiff({ ...base, modelQueue: 'mallory-models' }, { ...base, modelQueue: 'models' })).toEqual([
      'model queue: run has mallory-models, this start asked for models',
    ]);
    expect(settingsDiff({ ...base, context: { window: 4 } }, { ...base, context: { window: 4, strategy: 'window' } })).toEqual([
      'context strategy: run has the domain default, this start asked for window',
    ]);
  });

  it('a context that sets nothing is the domain default, and a memo written before these settings still reads', () => {
    expect(settingsDiff({ ...base, context: {} }, base)).toEqual([]);
    const older = { version: 1, model: { shown: 'rules', digest: 'x' }, budgets: {}, approvers: null, effects: null, approvalTimeoutMs: null };
    expect(StartSettings.safeParse(older).success).toBe(true);
  });

  it('the case is compared too where domain names make one workflow id (a case b-1 and a-b case 1 are both a-b-1)', () => {
    expect(caseDifference({ domain: 'a', caseId: 'b-1' }, { domain: 'a-b', caseId: '1' })).toEqual([
      'case: run is a case b-1, this start asked for a-b case 1',
    ]);
    expect(caseDifference({ domain: 'a-b', caseId: '1' }, { domain: 'a-b', caseId: '1' })).toEqual([]);
  });
});
