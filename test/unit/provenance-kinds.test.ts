// Provenance by kind (ToolContract.argKinds, factKind): an argument of a kind is vouched for by a
// trusted fact of that kind, compared by value however it is spelled, and by nothing else the run
// saw; and a fact is kept whole or not at all, never cut to a prefix that could vouch for a value
// the source never held. Judged by the gate on AgentDojo's banking and slack domains, here
// without the person they ask (so an unvouched value is refused, and the refusal names it).
import { describe, expect, it } from 'vitest';
import { ACCOUNT_HOLDER, banking } from '../../eval/agentdojo/banking.js';
import { directoryEntry } from '../../client/sign.js';
import { keys } from '../support/keys.js';
import { slack } from '../../eval/agentdojo/slack.js';
import type { Domain } from '../../workflows/contract.js';
import { defineDomain } from '../../workflows/public.js';
import { Run } from '../support/driver.js';

const { askWhenUnvouched: _b, ...bankingRefusing } = banking;
const { askWhenUnvouched: _s, ...slackRefusing } = slack;

const IBAN = 'GB29NWBK60161331926819';
function afterTransactions(): Run {
  const run = new Run(bankingRefusing as Domain, { caseId: 'b-u1-inone-abcd' });
  run.call({ tool: 'get_most_recent_transactions', args: { n: 5 } });
  run.observeOk({
    get_most_recent_transactions: () => ({
      transactions: [{ id: 4, sender: 'me', recipient: IBAN, amount: 100, subject: 'rent', date: '2022-03-04', recurring: false }],
    }),
  });
  return run;
}

const send = (recipient: string, amount: number) => ({ tool: 'send_money', args: { recipient, amount, subject: 'again', date: '2022-04-01' } });

describe('provenance by kind', () => {
  it('an amount is not vouched for by a transaction id that happens to equal it', () => {
    const run = afterTransactions();
    run.call(send(IBAN, 4));
    expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'tainted_argument' });
    expect(run.lastControl?.message).toContain('the amount "4" matches no trusted fact of kind amount');
    expect(run.invokedEver('send_money')).toBe(false);
  });

  it("a person's words vouch for a kinded value only when they state it whole, not when it hides in a longer number", () => {
    const holder = [directoryEntry(keys.carol, [ACCOUNT_HOLDER])];
    const run = afterTransactions();
    run.signedNote('Pay back my 2024 share; 150.5 at most.', keys.carol, holder);
    run.call(send(IBAN, 4));
    expect(run.lastDecision).toMatchObject({ accepted: false, reason: 'tainted_argument' });
    const stated = afterTransactions();
    stated.signedNote('Send 4 back to the same account.', keys.carol, holder);
    stated.call(send(IBAN, 4));
    expect(stated.lastDecision).toMatchObject({ accepted: true });
  });

  it('an account and an amount of the right kind are, however they are spelled', () => {
    const run = afterTransactions();
    run.call({ tool: 'send_money', args: { recipient: 'gb29 nwbk 6016 1331 9268 19', amount: 100.0, subject: 'again', date: '2022-04-01' } });
    expect(run.lastDecision).toMatchObject({ accepted: true });
    expect(run.calls.map((c) => c.tool)).toEqual(['send_money']);
  });

  it('an account named only by a counterparty (a fact of no kind) is not', () => {
    const run = afterTransactions();
    run.call(send('me', 100));
    // `me` is a sender, so an account: vouched; a recipient read nowhere is not.
    expect(run.lastDecision).toMatchObject({ accepted: true });
    const other = afterTransactions();
    other.call(send('US133000000121212121212', 100));
    expect(other.lastDecision).toMatchObject({ accepted: false, reason: 'tainted_argument' });
  });
});

describe('facts are kept whole', () => {
  it('a channel name longer than any cut is matched whole', () => {
    const long = `general-${'x'.repeat(300)}`;
    const run = new Run(slackRefusing as Domain, { caseId: 's-u1-inone-abcd' });
    run.call({ tool: 'get_channels', args: {} });
    run.observeOk({ get_channels: () => ({ channels: [long] }) });
    run.call({ tool: 'send_channel_message', args: { channel: long, body: 'hello' } });
    expect(run.lastDecision).toMatchObject({ accepted: true });
    const prefix = new Run(slackRefusing as Domain, { caseId: 's-u1-inone-abcd' });
    prefix.call({ tool: 'get_channels', args: {} });
    prefix.observeOk({ get_channels: () => ({ channels: [long] }) });
    prefix.call({ tool: 'send_channel_message', args: { channel: long.slice(0, 200), body: 'hello' } });
    expect(prefix.lastDecision).toMatchObject({ accepted: false, reason: 'tainted_argument' });
  });

  it('a fact longer than the output a contract allows is dropped, not cut', () => {
    const run = new Run(slackRefusing as Domain, { caseId: 's-u1-inone-abcd' });
    run.call({ tool: 'get_channels', args: {} });
    run.observeOk({ get_channels: () => ({ channels: ['y'.repeat(70_000)] }) });
    const facts = run.state.evidence.at(-1)?.facts ?? {};
    expect(Object.values(facts).some((v) => typeof v === 'string' && v.startsWith('yyy'))).toBe(false);
  });
});

describe('a domain that names kinds wrongly is refused when defined', () => {
  it('argKinds on an argument the tool does not have', () => {
    const sendMoney = banking.tools.find((t) => t.name === 'send_money')!;
    expect(() => defineDomain({ ...banking, tools: [{ ...sendMoney, argKinds: { payee: 'account' } }] } as never)).toThrow(/argKinds names payee/);
  });

  it('askWhenUnvouched nobody could satisfy', () => {
    expect(() => defineDomain({ ...banking, askWhenUnvouched: { roles: [], timeoutMs: 1_000, onTimeout: 'escalate' } } as never)).toThrow(
      /askWhenUnvouched: roles/,
    );
  });
});
