// What the operator is shown: the display facts beside an approval (ToolContract.display) come
// from facts only, never from outside text or the model's own words, are bounded, and a hook
// that throws is dropped; a finished run's headline says what it did and how it ended; the time
// left is one number for the CLI and the console.
import { describe, expect, it } from 'vitest';
import { payments } from '../../domains/payments/domain.js';
import { budgetLine, timeLeft } from '../../client/format.js';
import { runFragment } from '../../console/run-page.js';
import { toRunView } from '../../client/to-run-view.js';
import type { Domain } from '../../workflows/contract.js';
import type { AnyTool } from '../../workflows/tool-contract.js';
import { approvalDigest } from '../../workflows/controller/approval-request.js';
import { operatorMsLeft } from '../../workflows/controller/bounds.js';
import { MAX_DISPLAY_ENTRIES, MAX_DISPLAY_KEY_CHARS, MAX_DISPLAY_VALUE_CHARS } from '../../workflows/controller/display.js';
import { headline } from '../../workflows/controller/headline.js';
import { view } from '../../workflows/handlers.js';
import type { RunInput } from '../../workflows/run-input.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { HOSTILE, Run, TRANSFER, out, readLedger, readReplica, reissue } from '../support/driver.js';
import { pendingRequest } from '../support/phase.js';

const BENEFICIARY = 'DE89370400440532013000';
const input = { domain: 'payments', caseId: TRANSFER, model: { adapter: 'rules' } } as unknown as RunInput;

/** The world's ledger as it answers now: whether it was reissued, and to whom it pays. */
const ledger = (status: string) => (a: never, now: number) => ({ ...(out.ledger(status)(a, now) as object), reissueId: null, destination: BENEFICIARY });

/** Payments with the reissue's display hook replaced. */
function withDisplay(display: (args: never, evidence: never) => unknown): Domain {
  const tools = payments.tools.map((t) => (t.name === 'reissue_transfer' ? ({ ...t, display } as AnyTool) : t));
  return { ...payments, tools } as Domain;
}

/** A guarded payments run that read the ledger (and the replica, whose note is outside text) and asked for a reissue. */
function requested(domain: Domain, reason = reissue.args.reason): Run {
  const run = new Run(domain);
  run.call(readReplica, readLedger);
  run.observeOk({ read_replica: out.replica('FAILED', HOSTILE), read_ledger: ledger('FAILED') });
  run.call({ tool: 'reissue_transfer', args: { transferId: TRANSFER, reason } });
  expect(run.command.type).toBe('loadApprovers');
  return run;
}

function approve(run: Run) {
  return run.decide('approve', undefined, { comment: 'ok' });
}

describe('display facts for an approval', () => {
  it('the payments card shows amount, currency, beneficiary and the ledger state, and the digest covers them', () => {
    const run = requested(payments);
    const ledgerId = run.state.evidence.find((e) => e.tool === 'read_ledger')?.id;
    const pending = pendingRequest(run.state);
    expect(pending?.display).toEqual({
      transfer: TRANSFER,
      amount: '123.45',
      currency: 'EUR',
      beneficiary: BENEFICIARY,
      'ledger state': `FAILED (${ledgerId}, fresh; never reissued)`,
    });
    // Queries, the CLI and the console read it from the pending request.
    run.feed({ type: 'approversLoaded', now: run.tick(), requestId: pending?.requestId ?? '', approvers: TEST_DIRECTORY.approvers });
    expect(view(run.state, input, payments).awaiting?.display).toEqual(pending?.display);
    // Signed with the call: the same call shown with other lines (or none) has another digest, so a
    // card that shows something else than the run's own request cannot yield a valid signature.
    const bare = requested(withDisplay(() => ({})));
    expect(pendingRequest(bare.state)?.display).toBeUndefined();
    expect(pending?.digest).not.toBe(pendingRequest(bare.state)?.digest);
    expect(pending?.digest).toBe(approvalDigest(run.state.runId, pending?.requestId ?? '', pending!.call, run.state.chain, pending?.display));
    expect(pending?.digest).not.toBe(
      approvalDigest(run.state.runId, pending?.requestId ?? '', pending!.call, run.state.chain, { ...pending?.display, amount: '0.01' }),
    );
  });

  it("outside text never reaches the display, not even through the model's narrative arguments", () => {
    // A careless hook that shows everything it is given.
    const dumpAll = withDisplay((args: unknown, evidence: { facts: object; id: string }[]) => ({
      args: JSON.stringify(args),
      ...Object.fromEntries(evidence.map((e) => [e.id, JSON.stringify(e)])),
    }));
    // The model echoes the replica's note into its reason, as an obedient model would.
    const run = requested(dumpAll, `as the replica said: ${HOSTILE}`);
    const display = pendingRequest(run.state)?.display ?? {};
    expect(Object.keys(display).length).toBeGreaterThan(1);
    expect(run.state.evidence.some((e) => e.quoted.some((q) => q.includes(HOSTILE)))).toBe(true);
    for (const value of Object.values(display)) expect(value).not.toContain(HOSTILE);
    expect(display.args).toBe(JSON.stringify({ transferId: TRANSFER }));
  });

  it('a hook that throws is dropped and the request stands; what a hook returns is bounded', () => {
    const throwing = requested(
      withDisplay(() => {
        throw new Error('boom');
      }),
    );
    expect(pendingRequest(throwing.state)?.display).toBeUndefined();
    expect(pendingRequest(throwing.state)?.digest).toMatch(/^[0-9a-f]{64}$/);

    const notARecord = requested(withDisplay(() => ['a', 'b']));
    expect(pendingRequest(notARecord.state)?.display).toBeUndefined();

    const rambling = requested(
      withDisplay(() => ({
        number: 12 as unknown as string,
        object: { nested: true } as unknown as string,
        ['k'.repeat(500)]: 'v\n'.repeat(5_000),
        __proto__x: 'fine',
        ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`line ${i}`, `value ${i}`])),
      })),
    );
    const display = pendingRequest(rambling.state)?.display ?? {};
    const entries = Object.entries(display);
    expect(entries.length).toBe(MAX_DISPLAY_ENTRIES);
    expect(display).not.toHaveProperty('number');
    expect(display).not.toHaveProperty('object');
    for (const [k, v] of entries) {
      expect(k.length).toBeLessThanOrEqual(MAX_DISPLAY_KEY_CHARS);
      expect(v.length).toBeLessThanOrEqual(MAX_DISPLAY_VALUE_CHARS);
      expect(v).not.toMatch(/[\n\r]/);
    }
  });
});

describe("a finished run's headline", () => {
  function reissuedAndResolved(domain: Domain = payments): Run {
    const run = requested(domain);
    run.feed({ type: 'approversLoaded', now: run.tick(), requestId: pendingRequest(run.state)?.requestId ?? '', approvers: TEST_DIRECTORY.approvers });
    approve(run);
    run.observeOk({ read_ledger: ledger('FAILED') }); // the re-read before dispatch
    run.observeOk({ reissue_transfer: out.reissue() });
    run.confirmReissue();
    const cite = run.state.evidence.filter((e) => e.tool === 'read_ledger').at(-1)?.id ?? '';
    run.finish({ transferStatus: 'FAILED' }, [cite]);
    run.verify({ holds: true, detail: 'ledger says FAILED', facts: { 'ledger.status': 'FAILED' } });
    expect(run.state.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    return run;
  }

  it("says what the run did in the domain's words, and how it ended", () => {
    const run = reissuedAndResolved();
    expect(headline(run.state, payments)).toBe(`reissued ${TRANSFER} (123.45 EUR) as RI-1; the ledger has the original FAILED · resolved (probe_confirmed)`);
    expect(view(run.state, input, payments).headline).toBe(headline(run.state, payments));
    // Without the domain (a client, or a domain without summarize): the effects ledger says it.
    expect(headline(run.state)).toBe(`reissue_transfer ${TRANSFER} applied (reissue.id RI-1) · resolved (probe_confirmed)`);
    // The run page leads with it.
    expect(String(runFragment(toRunView(view(run.state, input, payments)), run.now))).toContain(`reissued ${TRANSFER} (123.45 EUR) as RI-1`);
  });

  it("a summarize that throws or rambles leaves the engine's words or a cut line; a running run has none", () => {
    const throwing = reissuedAndResolved({
      ...payments,
      summarize: () => {
        throw new Error('boom');
      },
    } as Domain);
    expect(headline(throwing.state, throwing.domain)).toBe(`reissue_transfer ${TRANSFER} applied (reissue.id RI-1) · resolved (probe_confirmed)`);
    const rambling = reissuedAndResolved({ ...payments, summarize: () => `a\n${'x'.repeat(5_000)}` } as Domain);
    const said = headline(rambling.state, rambling.domain) ?? '';
    expect(said).not.toContain('\n');
    expect(said.length).toBeLessThan(260);
    expect(headline(requested(payments).state, payments)).toBeUndefined();
  });
});

describe('one budget arithmetic', () => {
  it('the time left is the same whole-second number in the CLI line and the console, and stands still while a person decides', () => {
    const run = requested(payments);
    run.feed({ type: 'approversLoaded', now: run.tick(), requestId: pendingRequest(run.state)?.requestId ?? '', approvers: TEST_DIRECTORY.approvers });
    const st = run.state;
    const requestedAt = pendingRequest(st)?.requestedAt ?? 0;
    // Minutes pass while the approver thinks: what is left stays what was left when the clock stopped.
    const first = operatorMsLeft(st, requestedAt + 60_000);
    expect(operatorMsLeft(st, requestedAt + 5 * 60_000)).toBe(first);
    expect(first).toBe(Math.floor((st.deadlineAt - requestedAt) / 1_000) * 1_000);
    expect(first).toBeGreaterThan(0);
    // Once running again, it counts down from now, in whole seconds.
    const running = { ...st, phase: { name: 'proposing' as const } };
    expect(operatorMsLeft(running, st.deadlineAt - 1_500)).toBe(1_000);
    // The CLI's line and the console's table print the query's number the same way.
    const left = view(st, input, payments).budgetLeft;
    const shown = timeLeft(left.msLeft);
    expect(budgetLine(left, { paused: true })).toContain(`(${shown} left)`);
    expect(String(runFragment(toRunView(view(st, input, payments)), run.now))).toContain(`<td>${shown}</td>`);
    // A finished run's clock stopped when it ended.
    const ended = {
      ...running,
      phase: { name: 'terminal' as const },
      terminal: { class: 'resolved' as const, reason: 'probe_confirmed', detail: '', at: st.deadlineAt - 90_500 },
    };
    expect(operatorMsLeft(ended, st.deadlineAt + 3_600_000)).toBe(90_000);
    expect(timeLeft(599_999)).toBe('9m59s');
    expect(timeLeft(60_000)).toBe('1m00s');
  });
});
