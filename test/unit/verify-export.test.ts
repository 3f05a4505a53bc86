// `agent verify` audits an export offline by walking every effect, not only the approvals it is
// shown. A genuine export of a driven payments run (approved, re-read, reissued) passes; each
// tamper an attacker with write access to the export file could try fails with a reason naming
// what is wrong: an effect moved to another transfer under a fresh call id, the approval record
// deleted, the rule set stripped, an approvalTools entry dropped (against --require-approval),
// a display line edited after signing, a copied record, and an export below the auditor's
// minimum rule set. The command's printed lines and exit are checked through its own entry.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { payments } from '../../domains/payments/domain.js';
import { ACCOUNT_HOLDER, banking } from '../../eval/agentdojo/banking.js';
import { directoryEntry } from '../../client/sign.js';
import { toRunExport, type RunExport } from '../../client/export-schema.js';
import { toRunView } from '../../client/to-run-view.js';
import { verifyExport, type VerifyOptions } from '../../client/verify.js';
import { verify as verifyCommand } from '../../client/commands/verify.js';
import { Flags, type CommandContext } from '../../client/commands/types.js';
import { CliError } from '../../client/usage.js';
import { view } from '../../workflows/handlers.js';
import { RULE_SET } from '../../workflows/rule-set.js';
import type { RunInput } from '../../workflows/run-input.js';
import { keys, TEST_DIRECTORY } from '../support/keys.js';
import { Run, TRANSFER, out, readLedger, reissue } from '../support/driver.js';
import { pendingRequest } from '../support/phase.js';

const input: RunInput = { domain: 'payments', caseId: TRANSFER, model: { adapter: 'rules' } };
const ledger = (a: never, now: number) => ({ ...(out.ledger('FAILED')(a, now) as object), reissueId: null });
const current = Number(RULE_SET.replace('engine-v', ''));

/** The export of a payments run whose reissue alice approved and which then ran. */
function genuineExport(): RunExport {
  const run = new Run(payments);
  run.call(readLedger);
  run.observeOk({ read_ledger: ledger });
  run.call(reissue);
  run.decide('approve', keys.alice, { comment: 'ledger says FAILED' });
  run.observeOk({ read_ledger: ledger }); // the re-read before dispatch
  expect(run.calls.map((c) => c.tool)).toEqual(['reissue_transfer']);
  run.observeOk({ reissue_transfer: out.reissue() });
  run.confirmReissue();
  const answer = view(run.state, input, payments);
  // The run says which of its tools need approval, to clients and in the export.
  expect(answer.approvalTools).toEqual(['reissue_transfer']);
  expect(toRunView(answer).approvalTools).toEqual(['reissue_transfer']);
  const record = toRunExport(answer);
  // Applied, or in doubt until its readback (a contract may call the reply a claim): either way it was started.
  expect(record.effects).toMatchObject([{ tool: 'reissue_transfer' }]);
  expect(record.approvals).toMatchObject([{ decision: 'approved', by: 'alice@ops', callId: record.effects[0]?.callId }]);
  return record;
}

/** A deep copy to tamper with, as an attacker would edit the file. */
const copy = (r: RunExport): RunExport => JSON.parse(JSON.stringify(r)) as RunExport;
const effectOf = (r: RunExport) => r.effects[0]!;
const failures = (r: RunExport, options: VerifyOptions = {}) => {
  const report = verifyExport(r, TEST_DIRECTORY, options);
  return { ok: report.ok, effects: report.effects.filter((e) => !e.ok).map((e) => e.reason), export: report.exportProblems };
};

describe('verifyExport walks every effect', () => {
  it('a genuine export passes: the reissue ran under alice’s signed approval of exactly that call and the lines she was shown', () => {
    const record = genuineExport();
    expect(record.ruleSet).toBe(RULE_SET);
    expect(record.approvalTools).toEqual(['reissue_transfer']);
    expect(record.approvals[0]?.display).toMatchObject({ transfer: TRANSFER, amount: '123.45' });
    const report = verifyExport(record, TEST_DIRECTORY, { requireApproval: ['reissue_transfer'], minRuleSet: RULE_SET });
    expect(report).toMatchObject({ ok: true, exportProblems: [], problems: [] });
    expect(report.effects).toEqual([
      {
        callId: effectOf(record).callId,
        tool: 'reissue_transfer',
        needsApproval: true,
        ok: true,
        requestId: record.approvals[0]?.requestId,
        approvedBy: ['alice@ops'],
      },
    ]);
    expect(report.statements).toMatchObject([{ by: 'alice@ops', ok: true, digestChecked: true }]);
  });

  it('(a) the effect moved to another transfer under a call id no approval names fails, naming the effect', () => {
    const record = copy(genuineExport());
    const e = effectOf(record);
    record.effects[0] = { ...e, callId: 'c99', args: { transferId: 'PX-9999', reason: 'moved' }, subject: 'transfer:PX-9999' };
    expect(failures(record)).toEqual({ ok: false, effects: ['reissue_transfer needs approval, but no approval record names call c99'], export: [] });
  });

  it('(a) the effect’s arguments changed in place fail the digest', () => {
    const record = copy(genuineExport());
    record.effects[0] = { ...effectOf(record), args: { transferId: 'PX-9999', reason: 'moved' } };
    expect(failures(record).effects).toEqual([
      `alice@ops's approval does not hold: the signed call (or the lines shown with it) is not the reissue_transfer call that ran (${effectOf(record).callId})`,
    ]);
  });

  it('(b) the approval record deleted fails', () => {
    const record = copy(genuineExport());
    record.approvals = [];
    expect(failures(record)).toEqual({
      ok: false,
      effects: [`reissue_transfer needs approval, but no approval record names call ${effectOf(record).callId}`],
      export: [],
    });
  });

  it('(c) an export stripped of its rule set is refused unless unversioned exports are accepted', () => {
    const record = copy(genuineExport());
    delete record.ruleSet;
    expect(failures(record)).toEqual({
      ok: false,
      effects: [],
      export: [
        'the export names no rule set (no ruleSet, no guardVersion), so nothing says which checks it must pass; refused unless unversioned exports are accepted',
      ],
    });
    // Accepting it is the auditor's explicit choice; the effects are still walked.
    expect(failures(record, { acceptUnversioned: true }).ok).toBe(true);
    record.approvals = [];
    expect(failures(record, { acceptUnversioned: true }).effects).toHaveLength(1);
  });

  it('an export of this rule set without its chain or its approvalTools fails', () => {
    const noChain = copy(genuineExport());
    delete noChain.chain;
    expect(failures(noChain).export).toEqual([`an export of ${RULE_SET} must name its chain (approval digests cover it), and this one does not`]);
    const noTools = copy(genuineExport());
    delete noTools.approvalTools;
    expect(failures(noTools).export).toEqual([`an export of ${RULE_SET} must list its approvalTools (which effects need approval), and this one does not`]);
  });

  it('an approvalTools entry dropped with the record deleted passes the export’s own word, and fails --require-approval', () => {
    const record = copy(genuineExport());
    record.approvalTools = [];
    record.approvals = [];
    // The export alone now says the reissue needed nobody: that is why the auditor can insist.
    expect(verifyExport(record, TEST_DIRECTORY).effects).toMatchObject([{ tool: 'reissue_transfer', needsApproval: false, ok: true }]);
    expect(failures(record, { requireApproval: ['reissue_transfer'] })).toEqual({
      ok: false,
      effects: [`reissue_transfer needs approval, but no approval record names call ${effectOf(record).callId}`],
      export: [],
    });
  });

  it('a display line changed after signing fails: the digest covers what the approver was shown', () => {
    const record = copy(genuineExport());
    expect(verifyExport(record, TEST_DIRECTORY).ok).toBe(true);
    const approval = record.approvals[0]!;
    approval.display = { ...approval.display, amount: '99999.00' };
    const report = verifyExport(record, TEST_DIRECTORY);
    expect(report.ok).toBe(false);
    expect(report.effects[0]?.reason).toMatch(
      /^alice@ops's approval does not hold: the signed call \(or the lines shown with it\) is not the reissue_transfer call/,
    );
    expect(report.statements).toMatchObject([{ by: 'alice@ops', ok: false, digestChecked: true }]);
  });

  it('a record copied under a second, duplicated effect fails: one approval approves one call', () => {
    const record = copy(genuineExport());
    const e = effectOf(record);
    const a = record.approvals[0]!;
    record.effects.push({ ...e, callId: 'c99' });
    record.approvals.push({ ...a, callId: 'c99' });
    expect(failures(record).effects).toEqual([`request ${a.requestId} is recorded 2 times`, `request ${a.requestId} is recorded 2 times`]);
  });

  it('an effect whose request was denied, not approved, fails', () => {
    const record = copy(genuineExport());
    record.approvals[0]!.decision = 'denied';
    expect(failures(record).effects).toEqual(['its approval request was denied, never approved']);
  });

  it('--min-rule-set above the export’s fails; at or below it passes', () => {
    const record = genuineExport();
    expect(failures(record, { minRuleSet: `engine-v${current + 1}` }).export).toEqual([
      `the export's rule set ${RULE_SET} is below the minimum engine-v${current + 1}`,
    ]);
    expect(failures(record, { minRuleSet: `engine-v${current - 1}` }).ok).toBe(true);
    const older = { ...copy(record), guardVersion: 2 as const };
    delete older.ruleSet;
    expect(failures(older, { minRuleSet: 'engine-v1' }).export).toEqual(['a 0.2.x export (made before rule sets) is below the minimum rule set engine-v1']);
  });
});

describe("an effect that went out on a person's decision about an unvouched value", () => {
  const holder = [directoryEntry(keys.carol, [ACCOUNT_HOLDER])];
  const PAYEE = 'GB33BUKB20201555555555';

  /** A bank payment to an account nothing vouches for, which the account holder approved on the card that named it. */
  function approvedOnTheirWord(): RunExport {
    const run = new Run(banking, { caseId: 'b-u1-inone-abcd' });
    run.call({ tool: 'send_money', args: { recipient: PAYEE, amount: 10, subject: 'bill', date: '2022-04-01' } });
    expect(pendingRequest(run.state)?.call.tool).toBe('send_money');
    run.loadApprovers(holder);
    run.decide('approve', keys.carol, { directory: holder });
    expect(run.calls.map((c) => c.tool)).toEqual(['send_money']);
    run.observeOk({ send_money: () => ({ applied: true, message: 'sent' }) });
    return toRunExport(view(run.state, { domain: banking.name, caseId: 'b-u1-inone-abcd', model: { adapter: 'rules' } }, banking));
  }

  it('is marked with the values the person decided on, and passes with their signed approval of the card that named them', () => {
    const record = approvedOnTheirWord();
    expect(effectOf(record).onPersonsWord).toEqual([PAYEE, '10']);
    const report = verifyExport(record, { approvers: holder });
    expect(report.ok).toBe(true);
    expect(report.effects).toMatchObject([{ tool: 'send_money', needsApproval: true, onPersonsWord: [PAYEE, '10'], approvedBy: ['carol@sre'] }]);
  });

  it('fails when the decision is missing, or the mark names a value the card did not; a stripped mark is read back from the signed card', () => {
    const noDecision = copy(approvedOnTheirWord());
    noDecision.approvals = [];
    expect(verifyExport(noDecision, { approvers: holder }).effects.map((e) => e.reason)).toEqual([
      `went out on a person's decision about "${PAYEE}", "10", but no approval record names call ${effectOf(noDecision).callId}`,
    ]);
    // A mark the card did not show: the person never decided on that value.
    const moreThanShown = copy(approvedOnTheirWord());
    effectOf(moreThanShown).onPersonsWord = [PAYEE, '10', 'XX00ATTACKER'];
    expect(verifyExport(moreThanShown, { approvers: holder }).effects.map((e) => e.reason)).toEqual([
      'its approvers were not shown "XX00ATTACKER", which no trusted source vouched for',
    ]);
    const stripped = copy(approvedOnTheirWord());
    delete effectOf(stripped).onPersonsWord;
    expect(verifyExport(stripped, { approvers: holder }).effects).toMatchObject([{ ok: true, onPersonsWord: [PAYEE, '10'] }]);
  });
});

describe('agent verify prints one line per effect and exits 1 on any failure', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verify-export-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const directoryFile = join(dir, 'approvers.json');
  writeFileSync(directoryFile, JSON.stringify(TEST_DIRECTORY));

  async function run(record: RunExport, flags: Record<string, string | boolean> = {}) {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(record));
    const lines: string[] = [];
    const ctx = {
      json: false,
      program: 'agent',
      out: (l: string) => lines.push(l),
      err: (l: string) => lines.push(l),
      env: {},
      agent: () => Promise.reject(new Error('verify never connects')),
    };
    // The command throws its CliError (the CLI's exit 1) or UsageError (exit 2) as it runs.
    const error = await Promise.resolve()
      .then(() => verifyCommand(ctx as CommandContext, { export: file }, new Flags({ directory: directoryFile, ...flags })))
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    return { lines, error };
  }

  it('a genuine export: ok lines for the statement and the effect, then verified', async () => {
    const record = genuineExport();
    const { lines, error } = await run(record, { 'require-approval': 'reissue_transfer', 'min-rule-set': RULE_SET });
    expect(error).toBeUndefined();
    expect(lines).toEqual([
      `ok alice@ops approve request ${record.approvals[0]?.requestId}; matches the call that ran`,
      `ok effect ${effectOf(record).callId} reissue_transfer: approved by alice@ops, digest matches`,
      `verified: run ${record.runId}, 1 signed statement`,
    ]);
  });

  it('a deleted record: a FAILED line naming the effect, and a CliError (exit 1) counting it', async () => {
    const record = copy(genuineExport());
    record.approvals = [];
    const { lines, error } = await run(record);
    expect(lines).toEqual([
      `FAILED effect ${effectOf(record).callId} reissue_transfer: reissue_transfer needs approval, but no approval record names call ${effectOf(record).callId}`,
    ]);
    expect(CliError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(`run ${record.runId} failed verification: 1 problem (see above)`);
  });

  it('a stripped rule set: FAILED export, unless --accept-unversioned; a bad --min-rule-set is a usage error', async () => {
    const record = copy(genuineExport());
    delete record.ruleSet;
    const refused = await run(record);
    expect(refused.lines[0]).toMatch(/^FAILED export: the export names no rule set/);
    expect(CliError.isInstance(refused.error)).toBe(true);
    expect((await run(record, { 'accept-unversioned': true })).error).toBeUndefined();
    const bad = await run(genuineExport(), { 'min-rule-set': 'v7' });
    expect((bad.error as Error).message).toBe(`--min-rule-set must be a rule set such as ${RULE_SET}, got 'v7'`);
  });
});
