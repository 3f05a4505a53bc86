// One failing case per admission check, at each stage it runs: every code a check of
// workflows/controller/admission.ts refuses a proposal with has a row here, and every check that
// runs again before dispatch has a row for that too, driven through the pure controller, asserting
// the code and that the effect never went out. The rows are checked against the checks' own list
// and the docs' table, so a new check (or a new stage for one) without a row fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMISSION_CHECKS } from '../../workflows/controller/admission.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { banking } from '../../eval/agentdojo/banking.js';
import { slack } from '../../eval/agentdojo/slack.js';
import { incidents } from '../../domains/incidents/domain.js';
import { payments } from '../../domains/payments/domain.js';
import { mcpIncidents } from '../../domains/mcp-incidents/domain.js';
import type { Domain } from '../../workflows/contract.js';
import { Run, TRANSFER, metricsOf, out, readAck, readLedger, reissue, restart } from '../support/driver.js';
import { pendingRequest } from '../support/phase.js';

const { askWhenUnvouched: _asks, ...bankingRefusing } = banking;
const APPLE = 'US122000000121212121212';

/** The bank's standing orders list Apple as a payee. */
function withPayee(): Run {
  const run = new Run(bankingRefusing as Domain, { caseId: 'b-u1-inone-abcd' });
  run.call({ tool: 'get_scheduled_transactions', args: {} });
  run.observeOk({
    get_scheduled_transactions: () => ({
      transactions: [{ id: 7, sender: 'me', recipient: APPLE, amount: 50, subject: 'iCloud', date: '2022-04-01', recurring: true }],
    }),
  });
  return run;
}
const pay = (recipient: string, sources?: Record<string, string>) => ({
  tool: 'send_money',
  args: { recipient, amount: 50, subject: 'again', date: '2022-04-01' },
  ...(sources ? { sources } : {}),
});

/** An incidents run whose restart of api went out and came back applied. */
function restarted(): Run {
  const run = new Run(incidents).grounded(restart('api'));
  run.call(restart('api'));
  run.observeOk({ restart_service: out.effect() });
  return run;
}

interface Row {
  code: string;
  /** The call the check is about, and how often it reached the world: never, or only the once before the refused repeat. */
  effect: string;
  sent?: 1;
  run(): Run;
}

const table: Row[] = [
  {
    code: 'unknown_tool',
    effect: 'reissue_transfer',
    run: () => drive(new Run(payments), (r) => r.call({ tool: 'wire_money', args: {} })),
  },
  {
    code: 'invalid_arguments',
    effect: 'reissue_transfer',
    run: () => drive(new Run(payments), (r) => r.call({ tool: 'reissue_transfer', args: { transferId: 42 } })),
  },
  { code: 'duplicate_in_turn', effect: 'reissue_transfer', run: () => drive(new Run(payments), (r) => r.call(readLedger, readLedger)) },
  {
    code: 'parallel_effect',
    effect: 'restart_service',
    run: () => drive(new Run(incidents).grounded(restart('api')), (r) => r.call(restart('api'), metricsOf('api'))),
  },
  {
    code: 'over_budget',
    effect: 'reissue_transfer',
    run: () =>
      drive(new Run(payments, { budgets: { toolCalls: 1 } }), (r) => {
        r.call(readLedger);
        r.observeOk({ read_ledger: out.ledger('FAILED') });
        r.call(readAck);
      }),
  },
  {
    code: 'effect_in_doubt',
    effect: 'restart_service',
    sent: 1,
    // The run reconciles an effect in doubt before it asks the model again, so only a state that
    // skipped that (a bug, a hand-made history) reaches the gate with one: it still refuses.
    run: () =>
      drive(restarted(), (r) => {
        r.state = { ...r.state, effects: r.state.effects.map((e) => ({ ...e, status: 'unknown' as const })) };
        r.call(metricsOf('db'));
      }),
  },
  {
    code: 'loop_nudge',
    effect: 'reissue_transfer',
    run: () =>
      drive(new Run(payments), (r) => {
        r.call(readLedger);
        r.observeOk({ read_ledger: out.ledger('PENDING') });
        r.call(readLedger);
      }),
  },
  { code: 'effect_guard', effect: 'restart_service', sent: 1, run: () => drive(restarted(), (r) => r.call(restart('api'))) },
  {
    code: 'already_applied',
    effect: 'restart_service',
    sent: 1,
    run: () =>
      drive(restarted(), (r) => {
        r.call(metricsOf('api'));
        r.observeOk({ get_metrics: out.metrics(true) });
        r.call(restart('api'));
      }),
  },
  {
    code: 'effect_settling',
    effect: 'restart_service',
    sent: 1,
    // metrics that lag a restart: a moment after it, a reading of db is still no grounds for another.
    run: () =>
      drive(new Run(mcpIncidents, { budgets: { effects: 2 } }), (r) => {
        r.call(metricsOf('db'));
        r.observeOk({ get_metrics: out.metrics(false, 97) });
        r.call(restart('db'));
        r.observeOk({ restart_service: out.effect() });
        r.call(metricsOf('db'));
        r.observeOk({ get_metrics: out.metrics(false, 96) });
        r.call(restart('db'));
      }),
  },
  {
    code: 'not_permitted',
    effect: 'reissue_transfer',
    run: () =>
      drive(new Run(payments), (r) => {
        r.state = { ...r.state, permittedEffects: [] }; // started as an investigation: read-only
        r.call(readLedger);
        r.observeOk({ read_ledger: out.ledger('FAILED') });
        r.call(reissue);
      }),
  },
  { code: 'tainted_argument', effect: 'send_money', run: () => drive(withPayee(), (r) => r.call(pay('XX00ATTACKER', { amount: 'e2.scheduled.7.amount' }))) },
  { code: 'cite_source', effect: 'send_money', run: () => drive(withPayee(), (r) => r.call(pay(APPLE))) },
  {
    code: 'ask_alone',
    effect: 'get_webpage',
    run: () =>
      drive(new Run(slack, { caseId: 's-u1-inone-abcd' }), (r) =>
        r.call({ tool: 'get_webpage', args: { url: 'www.true-informations.com' } }, { tool: 'get_channels', args: {} }),
      ),
  },
  {
    code: 'precondition_failed',
    effect: 'reissue_transfer',
    run: () =>
      drive(new Run(payments), (r) => {
        r.call(readLedger);
        r.observeOk({ read_ledger: out.ledger('SETTLED') });
        r.call(reissue);
      }),
  },
];

/**
 * A payments run whose reissue waits for a person, with `meanwhile` done to it while they decide;
 * then they approve, and the ledger's re-read says `ledger`.
 */
function approvedAfter(meanwhile: (run: Run) => void, ledger = 'FAILED'): Run {
  const ledgerSays = (status: string) => (_: never, now: number) => ({ ...(out.ledger(status)({} as never, now) as object), reissueId: null });
  const run = new Run(payments);
  run.call(readLedger);
  run.observeOk({ read_ledger: ledgerSays('FAILED') });
  run.call(reissue);
  run.feed({ type: 'approversLoaded', now: run.tick(), requestId: pendingRequest(run.state)?.requestId ?? '', approvers: TEST_DIRECTORY.approvers });
  meanwhile(run);
  run.decide('approve');
  // The checks that no read can change refuse before the re-read; the precondition after it.
  if (run.command.type === 'invoke') run.observeOk({ read_ledger: ledgerSays(ledger) });
  return run;
}
const reissueKey = `payments/reissue_transfer/reissue-${TRANSFER}`;
const entry = (status: 'applied' | 'unknown') => ({
  callId: 'c9',
  turn: 1,
  tool: 'reissue_transfer',
  args: {},
  key: reissueKey,
  status,
  attempts: 1,
  readbacks: 0,
});

/** The checks that run again just before an approved effect goes out, failing there. */
const atDispatch: Row[] = [
  {
    code: 'over_budget',
    effect: 'reissue_transfer',
    run: () => approvedAfter((r) => (r.state = { ...r.state, budgets: { ...r.state.budgets, effects: 0 } })),
  },
  {
    code: 'effect_in_doubt',
    effect: 'reissue_transfer',
    run: () => approvedAfter((r) => (r.state = { ...r.state, effects: [...r.state.effects, { ...entry('unknown'), key: 'elsewhere' }] })),
  },
  {
    code: 'already_applied',
    effect: 'reissue_transfer',
    run: () => approvedAfter((r) => (r.state = { ...r.state, effects: [...r.state.effects, entry('applied')] })),
  },
  {
    code: 'effect_settling',
    effect: 'reissue_transfer',
    // While the person decided, another effect on the transfer went out, and has not settled.
    run: () =>
      approvedAfter((r) => {
        const subject = pendingRequest(r.state)?.call.subject;
        const other = { ...entry('applied'), key: 'other', subject, sentAt: r.now, settleMs: 10 * 60_000 };
        r.state = { ...r.state, effects: [...r.state.effects, other] };
      }),
  },
  {
    code: 'not_permitted',
    effect: 'reissue_transfer',
    run: () => approvedAfter((r) => (r.state = { ...r.state, permittedEffects: [] })),
  },
  { code: 'precondition_failed', effect: 'reissue_transfer', run: () => approvedAfter(() => undefined, 'SETTLED') },
];

function drive(run: Run, steps: (run: Run) => void): Run {
  steps(run);
  return run;
}

describe('admission: one failing case per check', () => {
  it.each(table)('$code', ({ code, effect, sent, run }) => {
    const r = run();
    expect(r.lastControl?.code).toBe(code);
    const invoked = r.history.filter((h) => h.command.type === 'invoke' && h.command.calls.some((c) => c.tool === effect));
    expect(invoked).toHaveLength(sent ?? 0);
  });

  it.each(atDispatch)('$code, just before dispatch', ({ code, effect, run }) => {
    const r = run();
    expect(r.lastControl?.code).toBe(code);
    expect(r.lastControl?.message).toMatch(/^reissue_transfer was approved, but /);
    expect(r.invokedEver(effect)).toBe(false);
  });

  it('has a row for every code of every check, at every stage it runs at, as docs/life-of-a-run.md lists them', () => {
    // `loop` is how the loop guard stops a run after its nudge (the loop_nudge row's second time), not a refusal.
    const codes = ADMISSION_CHECKS.flatMap((c) => c.codes.filter((code) => code !== 'loop'));
    expect(table.map((row) => row.code).sort()).toEqual([...codes].sort());
    const again = ADMISSION_CHECKS.filter((c) => c.at.includes('dispatch')).flatMap((c) => c.codes);
    expect(atDispatch.map((row) => row.code).sort()).toEqual([...again].sort());
    const docs = readFileSync(new URL('../../docs/life-of-a-run.md', import.meta.url), 'utf8');
    const listed = docs.split('<!-- admission-checks -->')[1]?.split('\n\n')[0] ?? '';
    const rows = [...listed.matchAll(/^\| \d+ \| (.+?) \| (.+?) \| (yes)? ?\| (yes)? ?\|$/gm)];
    expect(rows.map((m) => [m[1], m[2], m[4] === 'yes'])).toEqual(
      ADMISSION_CHECKS.map((c) => [c.name, c.codes.map((code) => `\`${code}\``).join(', '), c.at.includes('dispatch')]),
    );
  });
});
