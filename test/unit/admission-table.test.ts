// One failing case per admission check: every code the gate (workflows/controller/gate.ts) can
// refuse a proposal with has a row here, driven through the pure controller, asserting the code
// the model is told and that the effect never went out. The table is checked against the gate's
// own source, so a new check without a row fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { banking } from '../../eval/agentdojo/banking.js';
import { slack } from '../../eval/agentdojo/slack.js';
import { incidents } from '../../domains/incidents/domain.js';
import { payments } from '../../domains/payments/domain.js';
import type { Domain } from '../../workflows/contract.js';
import { Run, metricsOf, out, readAck, readLedger, reissue, restart } from '../support/driver.js';

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

  it("covers every code the gate refuses with (read from the gate's source), as docs/life-of-a-run.md lists them", () => {
    const source = readFileSync(new URL('../../workflows/controller/gate.ts', import.meta.url), 'utf8');
    const codes = [...new Set([...source.matchAll(/refuse\('([a-z_]+)'/g)].map((m) => m[1]))].sort();
    expect(table.map((row) => row.code).sort()).toEqual(codes);
    const docs = readFileSync(new URL('../../docs/life-of-a-run.md', import.meta.url), 'utf8');
    const listed = docs.split('<!-- admission-checks -->')[1]?.split('\n\n')[0] ?? '';
    expect([...listed.matchAll(/\| `([a-z_]+)` \|/g)].map((m) => m[1]).sort()).toEqual(codes);
  });
});
