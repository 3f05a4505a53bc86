// What a start and a request are signed for (workflows/trust/run-binding.ts): the same for the
// object the signer built and the JSON the workflow receives, different for any other namespace
// or setting, and blind to the statements themselves.
import { describe, expect, it } from 'vitest';
import { runBinding } from '../../workflows/trust/run-binding.js';
import type { RunInput } from '../../workflows/run-input.js';

const settings: RunInput = {
  domain: 'payments',
  caseId: 'PX-1',
  model: { adapter: 'scripted', replies: [{ type: 'escalate', reason: 'at', when: new Date(0) }] },
  budgets: { turns: 6 },
  effects: 'none',
};
const bound = runBinding('default', settings);

describe('runBinding', () => {
  it('is the same for the signer’s object, its JSON as the workflow receives it, its keys in another order, and an undefined field', () => {
    const received = JSON.parse(JSON.stringify(settings)) as RunInput;
    const reordered = { effects: 'none', budgets: { turns: 6 }, model: settings.model, caseId: 'PX-1', domain: 'payments' } as RunInput;
    expect(runBinding('default', received)).toBe(bound);
    expect(runBinding('default', reordered)).toBe(bound);
    expect(runBinding('default', { ...settings, approvalTimeoutMs: undefined })).toBe(bound);
  });

  it('differs for another namespace or any other setting', () => {
    expect(runBinding('elsewhere', settings)).not.toBe(bound);
    expect(runBinding('default', { ...settings, budgets: { turns: 60 } })).not.toBe(bound);
    const { effects: _effects, ...unrestricted } = settings;
    expect(runBinding('default', unrestricted)).not.toBe(bound);
    expect(runBinding('default', { ...settings, modelQueue: 'theirs' })).not.toBe(bound);
  });

  it('leaves out the statements it is carried in', () => {
    const start = { statement: { v: 1, kind: 'start', runId: 'payments-PX-1', by: 'sam', expiresAt: 1, bound }, signature: 'ab' } as RunInput['start'];
    expect(runBinding('default', { ...settings, start })).toBe(bound);
  });
});
