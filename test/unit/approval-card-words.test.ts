// What an approver reads on the card (client/card-words.ts, from RunView): who started the run
// and how, who proposed the call and with which model, the domain's signed lines that argue
// against it, what each evidence id is, and the decision's lifetime in words. Also the Web UI's
// word on a denied request (workflows/web-ui.ts) and the demo's expectation check. Driven through
// the pure controller and the same state-query answer the workflow gives (handlers.ts view).
import { describe, expect, it } from 'vitest';
import { evidenceOnCard, evidenceWords, plainDuration, proposerWords, splitDisplay, starterWords, validForWords } from '../../client/card-words.js';
import { AGAINST_PREFIX } from '../../client/run-view.js';
import { toRunView } from '../../client/to-run-view.js';
import { endedAsExpected, expectedEnd, scenarios } from '../../demo/scenarios.js';
import { payments } from '../../domains/payments/domain.js';
import { approvalDigest } from '../../workflows/controller/approval-request.js';
import { view } from '../../workflows/handlers.js';
import type { RunInput } from '../../workflows/run-input.js';
import { denialWords, finalDetails } from '../../workflows/web-ui.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { Run, TRANSFER, out, readAck, readLedger } from '../support/driver.js';
import { pendingRequest } from '../support/phase.js';

const input: RunInput = { domain: 'payments', caseId: TRANSFER, model: { adapter: 'openai', model: 'gpt-4o-mini' } };

/** A payments run that read the ledger (FAILED) and the processor's ack, and asks for a reissue; its directory loaded. */
function awaiting(ack: string): Run {
  const run = new Run(payments);
  run.call(readLedger, readAck);
  run.observeOk({ read_ledger: out.ledger('FAILED'), read_processor_ack: out.ack(ack) });
  run.call({ tool: 'reissue_transfer', args: { transferId: TRANSFER, reason: 'ledger shows the original transfer FAILED' } });
  run.feed({ type: 'approversLoaded', now: run.tick(), requestId: pendingRequest(run.state)?.requestId ?? '', approvers: TEST_DIRECTORY.approvers });
  expect(run.command.type).toBe('awaitApproval');
  return run;
}

describe('the approval card in words', () => {
  it('a processor that RECEIVED the original is a signed line against the reissue; the digest covers it', () => {
    const run = awaiting('RECEIVED');
    const pending = pendingRequest(run.state)!;
    const ackId = run.state.evidence.find((e) => e.tool === 'read_processor_ack')?.id;
    const key = `${AGAINST_PREFIX}processor ack`;
    expect(pending.display?.[key]).toBe(`RECEIVED (${ackId}, fresh): the processor has the original; if it still settles, a reissue pays twice`);
    const { against, lines } = splitDisplay(pending.display);
    expect(against).toEqual([['processor ack', pending.display?.[key]]]);
    expect(lines.map(([k]) => k)).toEqual(['transfer', 'amount', 'currency', 'ledger state']);
    // The line is signed with the call: without it, or with it reworded, the digest differs.
    const withoutIt = Object.fromEntries(Object.entries(pending.display ?? {}).filter(([k]) => k !== key));
    expect(pending.digest).toBe(approvalDigest(run.state.runId, pending.requestId, pending.call, run.state.chain, pending.display));
    expect(pending.digest).not.toBe(approvalDigest(run.state.runId, pending.requestId, pending.call, run.state.chain, withoutIt));
  });

  it('a processor that REJECTED the original is shown, not marked against', () => {
    const { display } = pendingRequest(awaiting('REJECTED').state)!;
    expect(splitDisplay(display).against).toEqual([]);
    expect(display?.['processor ack']).toMatch(/^REJECTED \(e\d+, fresh\)$/);
  });

  it('who started the run, who proposed the call and which model, from the state query', () => {
    const run = awaiting('RECEIVED');
    const unsigned = toRunView(view(run.state, input, payments));
    expect(unsigned.start).toEqual({ signed: false });
    expect(starterWords(unsigned.start)).toBe('unsigned start: no key vouches for who started it');
    expect(unsigned.model).toEqual({ adapter: 'openai', name: 'gpt-4o-mini' });
    expect(unsigned.awaiting?.proposedBy).toBe('model');
    expect(proposerWords(unsigned, unsigned.awaiting?.proposedBy)).toBe('the model gpt-4o-mini (OpenAI-compatible endpoint)');
    // A start whose signature verified names its signer; the route proposes without a model.
    const signed = toRunView(view({ ...run.state, starter: 'carol@ops' }, input, payments));
    expect(signed.start).toEqual({ signed: false, by: 'carol@ops' });
    expect(starterWords(signed.start)).toBe('carol@ops (signed start, verified)');
    expect(proposerWords({ shape: 'hybrid' }, 'route')).toBe("the domain's route (its runbook, no model); the run's shape is hybrid");
    expect(proposerWords({ model: { adapter: 'rules' } }, 'plan')).toBe("the plan made earlier by the domain's rules (a fixed policy, no language model)");
    // Scripted replies are never copied into the view.
    const scripted = toRunView(view(run.state, { ...input, model: { adapter: 'scripted', replies: [{ type: 'finish' }] } }, payments));
    expect(scripted.model).toEqual({ adapter: 'scripted' });
  });

  it('each evidence id on the card says what it is: tool, source, when, fresh or stale', () => {
    const run = awaiting('RECEIVED');
    const v = toRunView(view(run.state, input, payments));
    const shown = evidenceOnCard(v, v.awaiting!);
    const named = Object.values(v.awaiting!.display ?? {}).flatMap((line) => line.match(/\be\d+\b/g) ?? []);
    expect(named.length).toBeGreaterThan(0);
    for (const id of [...v.awaiting!.evidenceIds, ...named]) expect(shown.map((s) => s.id)).toContain(id);
    const ledger = shown.find((s) => s.evidence?.tool === 'read_ledger')!.evidence!;
    const now = ledger.observedAt + 2_000;
    expect(evidenceWords(ledger, now)).toMatch(/^read_ledger from ledger \(authoritative\), observed \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(2s ago\), fresh$/);
    expect(evidenceWords(ledger, ledger.observedAt + ledger.maxAgeMs + 1_000)).toMatch(/, stale now$/);
  });

  it("a decision's lifetime in plain words", () => {
    expect(plainDuration(600_000)).toBe('10 minutes');
    expect(plainDuration(3_600_000)).toBe('1 hour');
    expect(plainDuration(90_000)).toBe('90 seconds');
    expect(validForWords(600_000)).toBe('your approval is valid for 10 minutes after you sign: if it reaches the run later, the run refuses it');
  });
});

describe("the Web UI's word on a denial", () => {
  it('says who denied the request and why, while the run goes on and after its headline once it ends', () => {
    const run = awaiting('RECEIVED');
    const requestId = pendingRequest(run.state)!.requestId;
    run.decide('deny', undefined, { comment: 'the processor has it\nwait a day' });
    const said = `request ${requestId} denied by alice@ops: the processor has it wait a day`;
    expect(denialWords(run.state)).toBe(said);
    expect(finalDetails(run.state, 'PX-1042 is FAILED on the ledger · escalated (x)')).toBe(`PX-1042 is FAILED on the ledger · escalated (x)\n\n${said}`);
    // An approved request is not a denial.
    const approved = awaiting('RECEIVED');
    approved.decide('approve', undefined, { comment: 'ok' });
    expect(denialWords(approved.state)).toBeUndefined();
    expect(finalDetails(approved.state, 'the headline')).toBe('the headline');
  });
});

describe('the demo says what it expects', () => {
  it('every scenario states its expectation; an escalation a guard is there to cause is expected with its reason', () => {
    for (const s of scenarios) expect(s.expectation, s.name).toEqual(expect.any(String));
    const loop = scenarios.find((s) => s.name === 'looping-model')!;
    expect(expectedEnd(loop)).toBe('escalated (loop)');
    expect(endedAsExpected(loop, { class: 'escalated', reason: 'loop' })).toBe(true);
    expect(endedAsExpected(loop, { class: 'escalated', reason: 'deadline' })).toBe(false);
    expect(
      endedAsExpected(
        scenarios.find((s) => s.name === 'stale-replica')!,
        { class: 'resolved', reason: 'probe_confirmed' },
      ),
    ).toBe(true);
  });
});
