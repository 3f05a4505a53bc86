// The operator CLI against the shared dev server, with an in-process agent worker on a private
// task queue that trusts the test approver directory. Most commands are called in this process
// (cliMain: the function `npm run cli --` runs, given its argv, environment and streams); one
// test spawns the real script, as operators run it. Decisions are signed with the test
// keys, written to key files as an operator holds them. No mocks. The scenarios run
// concurrently; each owns its own case.
import { RULE_SET } from '../../workflows/rule-set.js';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { replayFailure } from '../../client/commands/replay.js';
import { WatchCursor } from '../../client/watch-cursor.js';
import type { RunView as ClientRunView } from '../../client/run-view.js';
import { RunExport } from '../../client/export-schema.js';
import { readKeyFile, signNote, writeKeyFile, type KeyFile } from '../../client/sign.js';
import { settingsDiff } from '../../client/start-run.js';
import { PATIENCE_MS, untilAwaiting, waitUntil } from '../support/wait.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import type { AgentWorkflow } from '../../workflows/agent.js';
import { stateQuery, type RunView } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import { Approver } from '../../workflows/trust/directory.js';
import { verifyStatement } from '../../workflows/trust/statement.js';
import { waitForRequest } from '../support/adversarial.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys, TEST_DIRECTORY } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { runScript, type ScriptResult as CliResult } from '../support/run-script.js';
import { cliEnv, runCliHere } from '../support/cli.js';

// Key files as operators hold them, and the directory an auditor verifies against.
const dir = mkdtempSync(join(tmpdir(), 'agent-cli-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function keyFile(name: string, key: KeyFile): string {
  const path = join(dir, `${name}.json`);
  writeKeyFile(path, key);
  return path;
}
const keyFiles = {
  alice: keyFile('alice', keys.alice),
  bob: keyFile('bob', keys.bob),
  /** A real key, but the worker's directory does not list it. */
  mallory: keyFile('mallory', keys.mallory),
  /** Claims to be alice, holds mallory's key. */
  forged: keyFile('forged', { ...keys.mallory, id: keys.alice.id }),
  /** Alice's key file with one character of its secret changed. */
  tampered: keyFile('tampered', { ...keys.alice, secretKey: flipHex(keys.alice.secretKey, 10) }),
};
const directoryFile = join(dir, 'directory.json');
writeFileSync(directoryFile, JSON.stringify(TEST_DIRECTORY));

// Ten commands run at once here: on a loaded host the worker answers status late, not never.
const cliSettings = { AGENT_STATUS_TIMEOUT_MS: '30000', USER: 'cli-tester' };

/** The same hex string with the character at `at` replaced by another hex digit. */
function flipHex(hex: string, at: number): string {
  return `${hex.slice(0, at)}${hex[at] === '0' ? '1' : '0'}${hex.slice(at + 1)}`;
}

describe.concurrent('agent CLI', () => {
  const h = useAgentHarness();
  // Tool calls wait a minute here, so an effect held in the world stays in flight while its run is terminated.
  const slow = useAgentHarness({ toolTimeoutMs: 60_000 });

  function cli(...args: string[]): Promise<CliResult> {
    return cliOn(h.taskQueue, ...args);
  }

  /** The CLI of an engine whose workers poll `taskQueue` (a run on another queue is not one of its runs). */
  function cliOn(taskQueue: string, ...args: string[]): Promise<CliResult> {
    return runCliHere(args, cliEnv(taskQueue, cliSettings));
  }

  /** Succeeded, said nothing on stderr; the parsed single-line JSON output. */
  function json<T = Record<string, unknown>>(r: CliResult): T {
    expect(r.stderr, r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as T;
  }

  /** Failed with the given exit code and exactly one `error: ...` line, no stack trace. */
  function expectOneLineError(r: CliResult, code: number, pattern: RegExp): void {
    expect(r.code, r.stderr).toBe(code);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: /);
    expect(lines[0]).toMatch(pattern);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }

  const handleOf = (runId: string): WorkflowHandle<AgentWorkflow> => h.client.workflow.getHandle<AgentWorkflow>(runId);
  const reissueCalls = async (transferId: string) => (await h.world.calls({ key: transferId })).filter((c) => c.op === 'payments.reissue');

  /** Writes an export to a file for `agent verify`, optionally changed first. */
  function exportFile(name: string, text: string): string {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, text);
    return path;
  }

  /**
   * Starts a FAILED-ledger payments case through the CLI (the rules model then proposes a
   * reissue, which needs approval) and waits until the request is open and its approvers known.
   */
  async function startAwaitingApproval(
    prefix: string,
    ...startFlags: string[]
  ): Promise<{ transferId: string; runId: string; awaiting: NonNullable<RunView['awaiting']> }> {
    const transferId = uniqueCase(prefix);
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED' });
    const started = json<{ runId: string; attached: boolean }>(await cli('start', 'payments', transferId, ...startFlags, '--json'));
    expect(started).toMatchObject({ runId: `payments-${transferId}`, attached: false });
    const awaiting = await waitForRequest(handleOf(started.runId));
    expect(awaiting.tool).toBe('reissue_transfer');
    return { transferId, runId: started.runId, awaiting };
  }

  it('start is idempotent only for the same settings; watch follows the run to its end; export matches RunExport; replay passes', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'SETTLED' });
    const first = json<{ runId: string; executionRunId: string; attached: boolean; running: boolean }>(
      await cli('start', 'payments', transferId, '--turns', '6', '--json'),
    );
    expect(first).toMatchObject({ runId: `payments-${transferId}`, attached: false, running: true, taskQueue: h.taskQueue });
    const [second, other] = await Promise.all([cli('start', 'payments', transferId, '--turns', '6'), cli('start', 'payments', transferId)]);
    // Asked for the same: attached. Asked for something else: refused, naming what differs.
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(new RegExp(`^attached to existing run payments-${transferId} \\(.*\\) with the same settings`));
    // A signed start that attaches names nobody: the run was started before it, and says so.
    const signed = await cli('start', 'payments', transferId, '--turns', '6', '--key', keyFiles.bob);
    expect(signed.stdout).toMatch(/with the same settings; the start signed by bob@support was not taken/);
    expectOneLineError(
      other,
      1,
      new RegExp(
        `a run for payments ${transferId} already (exists|ran) with different settings \\(budgets.turns: run has 6, this start asked for domain default\\); it was not changed`,
      ),
    );
    const described = await handleOf(first.runId).describe();
    expect(described.runId).toBe(first.executionRunId);

    // The run is quick; both watches may start after it ended and must still show every item once.
    const [watched, watchedJson] = await Promise.all([cli('watch', first.runId), cli('watch', first.runId, '--json')]);
    expect(watched.code, watched.stderr).toBe(0);
    const lines = watched.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\[turn 1\] model .*read_replica.* -> accepted/);
    expect(lines.some((l) => /^\[turn 2\] read\s+read_ledger -> final/.test(l))).toBe(true);
    expect(lines.some((l) => /^\[turn \d+\] probe\s+probe -> final/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/^terminal: resolved \(probe_confirmed\)/);
    expect(new Set(lines).size).toBe(lines.length); // each item once

    // --json: one object per line, the same items in the same order, the terminal last.
    const items = watchedJson.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(items).toHaveLength(lines.length);
    expect(items.at(-1)).toMatchObject({ type: 'terminal', class: 'resolved', reason: 'probe_confirmed' });
    const view = await handleOf(first.runId).query(stateQuery);
    expect(items.filter((i) => i.type === 'decision')).toHaveLength(view.state.decisions.length);
    expect(items.filter((i) => i.type === 'execution')).toHaveLength(view.state.executions.length);
    // The refused start changed nothing.
    expect(view.state.budgets.turns).toBe(6);
    expect(view.input?.budgets).toEqual({ turns: 6 });

    const [exported, status, replayed, again, againOther] = await Promise.all([
      cli('export', first.runId),
      cli('status', first.runId, '--json'),
      // The bundle global setup built from workflows/: the code the worker runs.
      cli('replay', first.runId, '--bundle', inject('workflowBundlePath')),
      cli('start', 'payments', transferId, '--turns', '6', '--json'),
      cli('start', 'payments', transferId, '--turns', '7'),
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const record = RunExport.parse(JSON.parse(exported.stdout));
    expect(record).toMatchObject({ runId: first.runId, domain: 'payments', caseId: transferId, terminal: { class: 'resolved' }, effects: [], approvals: [] });
    expect(record.ruleSet).toBe(RULE_SET);
    expect(record.chain).toBe(view.state.chain);
    expect(record.decisions.length).toBeGreaterThan(0);
    expect(record.executions.map((e) => e.tool)).toContain('read_ledger');
    expect(record.evidence.some((e) => e.tool === 'read_ledger' && e.facts['ledger.status'] === 'SETTLED')).toBe(true);
    expect(json(status)).toMatchObject({
      phase: 'terminal',
      awaiting: null,
      deadlinePaused: false,
      terminal: { class: 'resolved', reason: 'probe_confirmed' },
    });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toMatch(/^replay ok: /);
    // A closed case is reported, not run again; with other settings, that is an error too.
    expect(json(again)).toMatchObject({ runId: first.runId, attached: true, running: false, executionRunId: first.executionRunId, settings: 'same' });
    expectOneLineError(againOther, 1, /already ran with different settings \(budgets.turns: run has 6, this start asked for 7\)/);
  });

  it('approval: only a signature by an eligible key in the directory releases the reissue; bob, mallory, a forged and a tampered key are refused', async () => {
    // Bob signs the start: the run learns who started it once the directory is loaded.
    const { transferId, runId, awaiting } = await startAwaitingApproval('PX', '--key', keyFiles.bob);
    expect(awaiting).toMatchObject({
      roles: ['payments-approver'],
      subject: `transfer:${transferId}`,
      quorum: 1,
      approvedBy: [],
      eligible: ['alice@ops'],
      signed: true,
    });
    expect((await handleOf(runId).query(stateQuery)).state.starter).toBe('bob@support');
    // Follows the run live from here to its end.
    const watching = cli('watch', runId, '--json');

    const [again, narrowed, status, human, listed, bob, mallory, forged, tampered, wrong] = await Promise.all([
      // No key this time: who signed a start is not a setting, so this attaches.
      cli('start', 'payments', transferId, '--json'),
      cli('start', 'payments', transferId, '--approvers', 'mallory@evil'),
      cli('status', runId, '--json'),
      cli('status', runId),
      // Visibility is eventually consistent: wait (cheaply, in-process) until the server's list
      // has the run in its new phase, then ask the CLI.
      waitUntil(
        async () => {
          for await (const info of h.client.workflow.list({ query: `WorkflowId = '${runId}' AND AgentPhase = 'awaiting_approval'` })) return info;
          return undefined;
        },
        'visibility to show the run awaiting approval',
        { everyMs: 200 },
      ).then(async () =>
        json<Array<{ runId: string }>>(await cli('list', '--awaiting-approval', '--domain', 'payments', '--json')).find((r) => r.runId === runId),
      ),
      cli('approve', runId, awaiting.requestId, '--key', keyFiles.bob),
      cli('approve', runId, awaiting.requestId, '--key', keyFiles.mallory),
      cli('approve', runId, awaiting.requestId, '--key', keyFiles.forged),
      cli('approve', runId, awaiting.requestId, '--key', keyFiles.tampered),
      cli('approve', runId, `${awaiting.requestId}-nope`, '--key', keyFiles.alice),
    ]);
    expect(json(again)).toMatchObject({ runId, attached: true, running: true, settings: 'same', executionRunId: (await handleOf(runId).describe()).runId });
    expectOneLineError(
      narrowed,
      1,
      new RegExp(
        `a run for payments ${transferId} already exists with different settings \\(approvers: run has directory default, this start asked for \\[mallory@evil\\]\\); it was not changed`,
      ),
    );
    expect(json(status)).toMatchObject({
      phase: 'awaiting_approval',
      deadlinePaused: true,
      awaiting: {
        requestId: awaiting.requestId,
        tool: 'reissue_transfer',
        args: { transferId },
        subject: `transfer:${transferId}`,
        roles: ['payments-approver'],
        quorum: 1,
        eligible: ['alice@ops'],
        digest: awaiting.digest,
      },
    });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/awaiting\s+approval of reissue_transfer/);
    expect(human.stdout).toContain(awaiting.requestId);
    expect(human.stdout).toMatch(new RegExp(`subject\\s+transfer:${transferId}`));
    expect(human.stdout).toMatch(/quorum\s+0 of 1 approval\n/);
    expect(human.stdout).toMatch(/eligible\s+alice@ops\n/);
    // Who started it and who proposed the call; the processor's RECEIVED said as a fact against it; the lifetime in words.
    expect(human.stdout).toMatch(/started by\s+bob@support \(signed start, verified\)\n/);
    expect(human.stdout).toMatch(/proposed by\s+the domain's rules \(a fixed policy, no language model\)\n/);
    expect(human.stdout).toMatch(
      /AGAINST processor ack\s+RECEIVED \((e\d+), fresh\): the processor has the original[^\n]*\n[\s\S]*\n {2}\1\s+read_processor_ack from processor \(authoritative\), observed /,
    );
    expect(human.stdout).toMatch(/lifetime\s+your approval is valid for 10 minutes after you sign/);
    expect(json(status)).toMatchObject({ start: { signed: true, by: 'bob@support' }, model: { adapter: 'rules' }, awaiting: { proposedBy: 'model' } });
    expect(human.stdout).toMatch(/budget left\s+.*time paused while awaiting approval/);
    expect(listed).toMatchObject({ domain: 'payments', caseId: transferId, phase: 'awaiting_approval', terminal: null });
    expectOneLineError(bob, 1, /^error: approve rejected: the signer may not decide reissue_transfer \(needs payments-approver/);
    expectOneLineError(mallory, 1, /^error: approve rejected: the signer may not decide reissue_transfer/);
    expectOneLineError(forged, 1, /^error: approve rejected: the signature does not verify under the signer's directory key/);
    // A key file whose halves do not belong together never signs anything.
    expectOneLineError(tampered, 1, /public key does not belong to its secret key/);
    expectOneLineError(wrong, 1, /is not pending/);

    // Notes: unsigned and signed by an unknown key reach the model as untrusted text; alice's is trusted.
    const [unsigned, trusted, untrustedSigned] = await Promise.all([
      cli('note', runId, 'customer', 'called', 'again', '--as', 'carl@desk'),
      cli('note', runId, 'ledger', 'checked', 'by', 'phone', '--key', keyFiles.alice, '--json'),
      cli('note', runId, 'approve', 'it', 'now', '--key', keyFiles.mallory, '--json'),
    ]);
    expect(unsigned.code, unsigned.stderr).toBe(0);
    expect(unsigned.stdout).toMatch(/^note added to run .* by carl@desk \(unsigned: the model reads it as untrusted text/);
    expect(json(trusted)).toMatchObject({ accepted: true, trusted: true, signed: true, by: 'alice@ops' });
    expect(json(untrustedSigned)).toMatchObject({ accepted: true, trusted: false, signed: true, by: 'mallory@evil' });

    // Nothing so far has moved money or moved the run on.
    expect(await reissueCalls(transferId)).toEqual([]);
    const waiting = await handleOf(runId).query(stateQuery);
    expect(waiting.state.phase.name).toBe('awaiting_approval');
    expect(waiting.awaiting?.approvedBy).toEqual([]);
    expect(waiting.state.transcript.filter((t) => t.kind === 'note').map((t) => t.kind === 'note' && [t.by, t.trusted])).toEqual(
      expect.arrayContaining([
        ['carl@desk', false],
        ['alice@ops', true],
        ['mallory@evil', false],
      ]),
    );

    const approved = json<{ decision: string; requestId: string; outcome: string; by: string; subject: string }>(
      await cli('approve', runId, awaiting.requestId, '--key', keyFiles.alice, '--comment', 'ledger says FAILED', '--valid-for', '120', '--json'),
    );
    expect(approved).toMatchObject({ decision: 'approved', requestId: awaiting.requestId, by: 'alice@ops', subject: `transfer:${transferId}` });
    const result = await handleOf(runId).result();
    expect(result.terminal.class).toBe('resolved');
    expect(await reissueCalls(transferId)).toHaveLength(1);
    expect(await h.world.effects({ key: transferId })).toHaveLength(1);

    const [twice, exported, watched] = await Promise.all([cli('approve', runId, awaiting.requestId, '--key', keyFiles.alice), cli('export', runId), watching]);
    expectOneLineError(twice, 1, /already ended|not pending/);
    expect(await h.world.effects({ key: transferId })).toHaveLength(1);

    expect(exported.code, exported.stderr).toBe(0);
    const record = RunExport.parse(JSON.parse(exported.stdout));
    expect(record.ruleSet).toBe(RULE_SET);
    expect(record.approvals).toMatchObject([{ requestId: awaiting.requestId, decision: 'approved', by: 'alice@ops', comment: 'ledger says FAILED' }]);
    const signed = record.approvals[0]?.signed ?? [];
    expect(signed.map((s) => s.statement)).toMatchObject([
      { runId, requestId: awaiting.requestId, digest: awaiting.digest, decision: 'approve', by: 'alice@ops' },
    ]);
    expect(record.effects).toMatchObject([{ tool: 'reissue_transfer', status: 'applied' }]);
    expect(record.transcript).toContainEqual(expect.objectContaining({ kind: 'note', by: 'carl@desk', text: 'customer called again' }));

    // Offline: the real export verifies; one changed hex digit of the signature does not.
    const signature = signed[0]?.signature ?? '';
    const forgedExport = exported.stdout.replace(signature, flipHex(signature, 17));
    expect(forgedExport).not.toBe(exported.stdout);
    // With the only statement gone, the approved record of a signed run has nothing behind it.
    const stripped = JSON.stringify({ ...record, approvals: record.approvals.map(({ signed: _signed, ...a }) => a) });
    const [verified, verifiedJson, broken, unsignedRecord, noDirectory] = await Promise.all([
      cli('verify', exportFile(`${runId}-export`, exported.stdout), '--directory', directoryFile),
      cli('verify', exportFile(`${runId}-export-2`, exported.stdout), '--directory', directoryFile, '--json'),
      cli('verify', exportFile(`${runId}-forged`, forgedExport), '--directory', directoryFile),
      cli('verify', exportFile(`${runId}-stripped`, stripped), '--directory', directoryFile),
      cli('verify', exportFile(`${runId}-export-3`, exported.stdout)),
    ]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(new RegExp(`^ok alice@ops approve request ${awaiting.requestId.replace(/[/]/g, '\\/')}; matches the call that ran\n`));
    expect(verified.stdout).toMatch(/^ok effect c\d+ reissue_transfer: approved by alice@ops, digest matches$/m);
    expect(verified.stdout).toMatch(/^verified: run .*, 1 signed statement$/m);
    expect(json(verifiedJson)).toMatchObject({
      runId,
      ok: true,
      signedRun: true,
      problems: [],
      statements: [{ by: 'alice@ops', ok: true, digestChecked: true }],
    });
    // The forged statement, and the effect that ran under it: one FAILED line each.
    expectOneLineError(broken, 1, /failed verification: 2 problems/);
    expect(broken.stdout).toMatch(/^FAILED effect c\d+ reissue_transfer: alice@ops's approval does not hold: the signature does not verify/m);
    expect(broken.stdout).toMatch(/^FAILED alice@ops approve request .*: the signature does not verify under alice@ops's key$/m);
    expectOneLineError(unsignedRecord, 1, /failed verification/);
    expect(unsignedRecord.stdout).toMatch(/^FAILED request .*: recorded as approved by alice@ops without any signed statement$/m);
    expectOneLineError(noDirectory, 2, /--directory/);

    // The live watch saw the request (with its subject and quorum), the decision, the effect and the end, each once, in order.
    expect(watched.code, watched.stderr).toBe(0);
    const items = watched.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown> & { type: string });
    const at = (pred: (i: (typeof items)[number]) => boolean) => items.findIndex(pred);
    const request = at((i) => i.type === 'approval_request');
    const decision = at((i) => i.type === 'approval' && i.decision === 'approved');
    const effect = at((i) => i.type === 'execution' && i.tool === 'reissue_transfer');
    expect(request).toBeGreaterThanOrEqual(0);
    expect(items[request]).toMatchObject({ subject: `transfer:${transferId}`, quorum: 1, roles: ['payments-approver'] });
    expect(decision).toBeGreaterThan(request);
    expect(effect).toBeGreaterThan(decision);
    expect(items.filter((i) => i.type === 'approval_request')).toHaveLength(1);
    expect(items.filter((i) => i.type === 'note')).toHaveLength(3);
    expect(items.at(-1)).toMatchObject({ type: 'terminal', class: 'resolved' });
    expect(items.filter((i) => i.type === 'terminal')).toHaveLength(1);
  });

  it('deny: signed by alice; the model hears the denial, escalates, nothing moves, and the denial verifies offline', async () => {
    const { transferId, runId, awaiting } = await startAwaitingApproval('PX');
    const denied = await cli('deny', runId, awaiting.requestId, '--key', keyFiles.alice, '--comment', 'beneficiary bank is down');
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toMatch(new RegExp(`^denied reissue_transfer .* on transfer:${transferId} as alice@ops \\(request `));
    const result = await handleOf(runId).result();
    // The rules model read the denial and escalated instead of trying again.
    expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'model_escalation' });
    expect(result.terminal.detail).toContain('beneficiary bank is down');
    expect(result.effects).toEqual([]);
    const view = await handleOf(runId).query(stateQuery);
    expect(view.state.transcript).toContainEqual(expect.objectContaining({ kind: 'control', code: 'approval_denied' }));
    expect(view.state.approvals).toMatchObject([{ decision: 'denied', by: 'alice@ops' }]);
    expect(await h.world.effects({ key: transferId })).toEqual([]);
    expect(await reissueCalls(transferId)).toEqual([]);

    const exported = await cli('export', runId);
    expect(exported.code, exported.stderr).toBe(0);
    const verified = await cli('verify', exportFile(`${runId}-export`, exported.stdout), '--directory', directoryFile);
    expect(verified.code, verified.stderr).toBe(0);
    // Nothing ran, so there is no call to compare the digest with.
    expect(verified.stdout).toMatch(/^ok alice@ops deny request \S+\n/);
  });

  it("start --request: the starter's signed request, with its typed fields, is the run's first note, their word before the first proposal", async () => {
    const asked = 'reissue it if the ledger says FAILED';
    const fields = '{"amount":125,"transfer":"PX-REQ"}';
    const { runId } = await startAwaitingApproval('PX-REQ', '--key', keyFiles.alice, '--request', asked, '--request-fields', fields);
    const view = await handleOf(runId).query(stateQuery);
    const notes = view.state.transcript.filter((t) => t.kind === 'note');
    expect(notes[0]).toMatchObject({ by: keys.alice.id, text: asked, trusted: true, fields: { amount: 125, transfer: 'PX-REQ' } });
    expect(view.state.transcript.findIndex((t) => t.kind === 'note')).toBeLessThan(view.state.transcript.findIndex((t) => t.kind === 'proposal'));
    await handleOf(runId).cancel();
  });

  it('cancel while waiting for approval: cancelled, no effect', async () => {
    const { transferId, runId } = await startAwaitingApproval('PX');
    const cancelled = await cli('cancel', runId, '--reason', 'duplicate ticket');
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toMatch(/^cancel requested for run .* by cli-tester$/m);
    const result = await handleOf(runId).result();
    expect(result.terminal).toMatchObject({ class: 'cancelled', reason: 'operator_cancel' });
    expect(result.terminal.detail).toContain('duplicate ticket');
    expect(result.effects).toEqual([]);
    expect((await handleOf(runId).query(stateQuery)).state.approvals).toMatchObject([{ decision: 'cancelled', by: 'cli-tester' }]);
    expect(await h.world.effects({ key: transferId })).toEqual([]);
    const again = await cli('cancel', runId);
    expectOneLineError(again, 1, /not running/);
  });

  it('watch shows why a read failed; a run no worker polls: status, export, watch and list answer from the server and never ask it; a bad case id is a usage error and no run', async () => {
    // Nothing seeded: every read of this transfer is a 404 from the system of record.
    const missing = uniqueCase('PX');
    // A run on a task queue no worker polls: its state query could never be answered.
    const queue = uniqueTaskQueue('nobody');
    const nobody = new AgentClient({ client: h.client, taskQueue: queue });
    const parkedCase = uniqueCase('PX');
    const parked = await nobody.start({ domain: 'payments', caseId: parkedCase, model: { adapter: 'rules' } });
    try {
      const started = json<{ runId: string }>(await cli('start', 'payments', missing, '--json'));
      const [watched, status, statusJson, exported, watchedParked, badCase] = await Promise.all([
        cli('watch', started.runId),
        cli('status', parked.runId),
        cli('status', parked.runId, '--json'),
        cli('export', parked.runId),
        cli('watch', parked.runId),
        cli('start', 'payments', 'not-a-transfer'),
      ]);
      // The watched run has ended: its worker answers for it.
      const answered = await cli('status', started.runId, '--json');
      expect(watched.code, watched.stderr).toBe(0);
      expect(watched.stdout).toMatch(/^\[turn \d+\] read\s+read_ledger -> failed \(refused; semantic: [^)]*404 transfer_not_found[^)]*\), attempt /m);
      expect(watched.stdout.trimEnd().split('\n').at(-1)).toMatch(/^terminal: /);

      // The server said nobody polls the queue, so the state query was not sent: the output says
      // which path answered and why, with the run's real task queue.
      expect(status.code, status.stderr).toBe(0);
      expect(status.stderr).toBe('');
      expect(status.stdout).toMatch(new RegExp(`^run\\s+${parked.runId}$`, 'm'));
      expect(status.stdout).toMatch(/^domain\s+payments$/m);
      expect(status.stdout).toMatch(new RegExp(`^case\\s+${parkedCase}$`, 'm'));
      expect(status.stdout).toMatch(/^execution\s+running, started /m);
      expect(status.stdout).toMatch(new RegExp(`^task queue\\s+${queue} \\(no worker polling\\)$`, 'm'));
      expect(status.stdout.trimEnd().split('\n').at(-1)).toBe(
        `no worker is polling task queue ${queue}; showing what the server knows (the state query was not sent)`,
      );
      expect(json(statusJson)).toMatchObject({
        runId: parked.runId,
        domain: 'payments',
        caseId: parkedCase,
        status: 'RUNNING',
        terminal: null,
        taskQueue: queue,
        stateAnswered: false,
        answeredBy: 'server',
        workerAsked: false,
        execution: { taskQueue: queue, pollers: { checked: true, recent: 0 } },
        notices: [`no worker is polling task queue ${queue}; showing what the server knows (the state query was not sent)`],
      });
      // A run a worker answers: the other path, and the output says so too.
      expect(json(answered)).toMatchObject({
        phase: 'terminal',
        answeredBy: 'worker',
        workerAsked: true,
        stateAnswered: true,
        execution: { taskQueue: h.taskQueue },
      });

      // An export is the run's own record: refused in one line naming the queue, not half a record.
      expectOneLineError(exported, 1, new RegExp(`^error: cannot export run ${parked.runId}: no worker is polling task queue ${queue}$`));
      expect(exported.stdout).toBe('');
      expectOneLineError(watchedParked, 1, new RegExp(`^error: run ${parked.runId}: no worker is polling task queue ${queue}$`));

      // The list says it beside the row (visibility is eventually consistent: wait for the row in-process first).
      await waitUntil(
        async () => (await nobody.list({ domain: 'payments', limit: 1_000 })).find((r) => r.runId === parked.runId),
        'the parked run in the list',
        { everyMs: 200 },
      );
      const [listed, listedJson] = await Promise.all([
        cli('list', '--domain', 'payments', '--phase', 'running', '--limit', '1000'),
        cli('list', '--domain', 'payments', '--phase', 'running', '--limit', '1000', '--json'),
      ]);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(
        new RegExp(
          `^${parked.runId}\\s+payments\\s+${parkedCase}\\s+running\\s+-\\s+-\\s+running\\s+no worker is polling task queue ${queue}; not served by this engine's queue: task queue ${queue} is not ${h.taskQueue}(?: or \\S+)*, so this is not one of this engine's runs$`,
          'm',
        ),
      );
      expect(json<Array<{ runId: string }>>(listedJson).find((r) => r.runId === parked.runId)).toMatchObject({
        taskQueue: queue,
        status: 'RUNNING',
        notice: `no worker is polling task queue ${queue}`,
      });

      expectOneLineError(badCase, 2, /^error: not-a-transfer is not a payments case id/);
      await expect(handleOf('payments-not-a-transfer').describe()).rejects.toThrow(/not found/);
    } finally {
      await nobody.handle(parked.runId).terminate('test cleanup');
    }
  });

  it('terminated while its reissue was in flight: status says terminated and shows the effect as abandoned, not in flight as if alive', async () => {
    const a = new AgentClient({ client: slow.client, taskQueue: slow.taskQueue });
    const transferId = uniqueCase('PX');
    await seedTransfer(slow.world, transferId, { ledgerStatus: 'FAILED' });
    const { runId } = await a.start({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const awaiting = await untilAwaiting(() => a.state(runId));
    // The processor parks the reissue before it commits, so the run's effect stays in flight.
    const { holdId } = await slow.world.createHold({ op: 'payments.reissue', key: transferId, point: 'before_commit' });
    try {
      await a.approve(runId, awaiting.requestId, keys.alice);
      await slow.world.waitForHold(holdId, { timeoutMs: PATIENCE_MS });
      await waitUntil(async () => (await a.state(runId)).effects.some((e) => e.status === 'in_flight'), 'the effect in flight');
      await handleOf(runId).terminate('test: terminated mid-reissue');
    } finally {
      await slow.world.dropHold(holdId).catch(() => undefined);
    }
    const [human, asJson] = await Promise.all([cliOn(slow.taskQueue, 'status', runId), cliOn(slow.taskQueue, 'status', runId, '--json')]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^phase\s+\S+ when it was terminated: it will not move again$/m);
    expect(human.stdout).toMatch(
      /^effect\s+reissue_transfer .* was in flight when the run was terminated: nothing will read it back, so its outcome is unknown/m,
    );
    expect(human.stdout).toMatch(
      /^terminal\s+- \(terminated at \S+ by \S+: test: terminated mid-reissue; the run recorded no outcome and will not move again\)$/m,
    );
    expect(human.stdout).toMatch(/^execution\s+terminated, started \S+, closed \S+$/m);
    expect(human.stdout).toMatch(/^awaiting\s+-$/m);
    expect(human.stdout).not.toMatch(/time paused|in_flight/);
    expect(human.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^terminated at \S+ by \S+: test: terminated mid-reissue; the run recorded no outcome and will not move again$/,
    );
    expect(json(asJson)).toMatchObject({
      answeredBy: 'worker',
      terminal: null,
      awaiting: null,
      deadlinePaused: false,
      abandonedEffects: [{ tool: 'reissue_transfer', args: { transferId } }],
      execution: { status: 'TERMINATED', closed: { as: 'terminated', reason: 'test: terminated mid-reissue' } },
    });
  });

  it('keys generate: a private key file (mode 600, never overwritten) and the directory entry that verifies its signatures', async () => {
    const out = join(dir, 'dana.json');
    const generated = await cli('keys', 'generate', '--id', 'dana@ops', '--out', out, '--roles', 'payments-approver, sre-lead');
    expect(generated.code, generated.stderr).toBe(0);
    const [entryLine, hint, ...rest] = generated.stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(hint).toMatch(/AGENT_APPROVERS_FILE/);
    const entry = Approver.parse(JSON.parse(entryLine ?? ''));
    expect(entry).toMatchObject({ id: 'dana@ops', roles: ['payments-approver', 'sre-lead'] });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const key = readKeyFile(out);
    expect(key).toMatchObject({ id: 'dana@ops', publicKey: entry.publicKey });
    // What the key signs verifies under the printed entry, and under no one else's.
    const note = signNote(key, 'payments-PX-1', 'hello');
    expect(verifyStatement(note, entry.publicKey)).toBe(true);
    expect(verifyStatement(note, keys.alice.publicKey)).toBe(false);

    const before = readFileSync(out, 'utf8');
    const [again, jsonOnly, badAction, noOut] = await Promise.all([
      cli('keys', 'generate', '--id', 'eve@ops', '--out', out),
      cli('keys', 'generate', '--id', 'erin@ops', '--out', join(dir, 'erin.json'), '--json'),
      cli('keys', 'rotate', '--id', 'x', '--out', join(dir, 'x.json')),
      cli('keys', 'generate', '--id', 'x'),
    ]);
    expectOneLineError(again, 1, /already exists; not overwriting/);
    expect(readFileSync(out, 'utf8')).toBe(before);
    const erin = Approver.parse(json(jsonOnly));
    expect(erin).toMatchObject({ id: 'erin@ops', roles: [], publicKey: readKeyFile(join(dir, 'erin.json')).publicKey });
    expectOneLineError(badAction, 2, /unknown action 'rotate'/);
    expectOneLineError(noOut, 2, /--out/);
  });

  it('the real script, as operators run it: start and status of a case, help, a usage error and an unknown run, each with its exit code', async () => {
    const spawned = (...args: string[]) => runScript('domains/cli.ts', args, cliEnv(h.taskQueue, cliSettings));
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'SETTLED' });
    const started = json<{ runId: string }>(await spawned('start', 'payments', transferId, '--turns', '6', '--json'));
    expect(started.runId).toBe(`payments-${transferId}`);
    await handleOf(started.runId).result();
    const [status, help, usageError, unknownRun] = await Promise.all([
      spawned('status', started.runId, '--json'),
      spawned('--help'),
      spawned('frobnicate'),
      spawned('status', 'payments-no-such-run'),
    ]);
    expect(json(status)).toMatchObject({ phase: 'terminal', terminal: { class: 'resolved', reason: 'probe_confirmed' } });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run cli -- <command>/);
    expectOneLineError(usageError, 2, /unknown command 'frobnicate'/);
    expectOneLineError(unknownRun, 1, /^error: run payments-no-such-run not found$/);
  });

  it('usage errors and unknown runs: one line on stderr, no stack trace', async () => {
    const [
      badFlag,
      unknownCommand,
      missingArg,
      noKey,
      oldAs,
      badValidFor,
      badNumber,
      quoted,
      unknownRun,
      unknownApprove,
      unknownReplay,
      badDomain,
      emptyApprovers,
      unsignedRequest,
      badFields,
      fieldsWithoutRequest,
      help,
    ] = await Promise.all([
      cli('status', 'payments-x', '--bogus'),
      cli('frobnicate'),
      cli('start', 'payments'),
      cli('approve', 'payments-x', 'req-1'),
      cli('approve', 'payments-x', 'req-1', '--as', 'alice@ops'),
      cli('deny', 'payments-x', 'req-1', '--key', keyFiles.alice, '--valid-for', '0'),
      cli('start', 'payments', 'PX-1', '--turns', 'many'),
      cli('list', '--domain', "payments' OR 1=1"),
      cli('status', 'payments-no-such-run'),
      cli('approve', 'payments-no-such-run', 'r1', '--key', keyFiles.alice),
      cli('replay', 'payments-no-such-run'),
      cli('start', 'no-such-domain', 'PX-1'),
      cli('start', 'payments', 'PX-1', '--approvers', ' , '),
      cli('start', 'payments', 'PX-1', '--request', 'pay it'),
      cli('start', 'payments', 'PX-1', '--key', keyFiles.alice, '--request', 'pay it', '--request-fields', '{"Payee":1}'),
      cli('start', 'payments', 'PX-1', '--key', keyFiles.alice, '--request-fields', '{"payee":"X"}'),
      cli('--help'),
    ]);
    expectOneLineError(badFlag, 2, /Unknown option '--bogus'/);
    expectOneLineError(unknownCommand, 2, /unknown command 'frobnicate'/);
    expectOneLineError(missingArg, 2, /missing <case>/);
    expectOneLineError(noKey, 2, /approve needs --key/);
    expectOneLineError(oldAs, 2, /Unknown option '--as'/);
    expectOneLineError(badValidFor, 2, /--valid-for must be between 1 and 86400/);
    expectOneLineError(badNumber, 2, /--turns must be a whole number/);
    expectOneLineError(quoted, 2, /may not contain quotes/);
    expectOneLineError(unknownRun, 1, /^error: run payments-no-such-run not found$/);
    expectOneLineError(unknownApprove, 1, /run payments-no-such-run not found/);
    expectOneLineError(unknownReplay, 1, /run payments-no-such-run not found/);
    expectOneLineError(badDomain, 2, /unknown domain no-such-domain/);
    expectOneLineError(emptyApprovers, 2, /--approvers needs at least one directory id/);
    expectOneLineError(unsignedRequest, 2, /--request is signed by its starter: give --key too/);
    expectOneLineError(badFields, 2, /^error: --request-fields: /);
    expectOneLineError(fieldsWithoutRequest, 2, /--request-fields are part of a signed request: give --request too/);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run cli -- <command>/);
  });
});

describe('start settings comparison', () => {
  const base: RunInput = { domain: 'payments', caseId: 'PX-1', model: { adapter: 'rules' } };

  it('names each setting that differs and ignores who signed the start', () => {
    expect(settingsDiff(base, { ...base })).toEqual([]);
    expect(settingsDiff({ ...base, approvers: ['b', 'a'] }, { ...base, approvers: ['a', 'b'] })).toEqual([]);
    // The old record form narrows to its ids.
    expect(settingsDiff({ ...base, approvers: { 'alice@ops': ['payments-approver'] } }, { ...base, approvers: ['alice@ops'] })).toEqual([]);
    expect(
      settingsDiff(
        { ...base, model: { adapter: 'rules', latencyMs: 5 }, budgets: { turns: 6 }, approvers: ['mallory@evil'], approvalTimeoutMs: 5_000 },
        { ...base, budgets: { deadlineMs: 60_000 } },
      ),
    ).toEqual([
      'model: run has rules {"latencyMs":5}, this start asked for rules',
      'budgets.deadlineMs: run has domain default, this start asked for 60000',
      'budgets.turns: run has 6, this start asked for domain default',
      'approvers: run has [mallory@evil], this start asked for directory default',
      'approval timeout: run has 5000 ms, this start asked for contract default',
    ]);
  });
});

describe('replay failure message', () => {
  it("keeps core's reason and drops its debug dump and stack trace", () => {
    const err = new Error(
      'Replay failed with a nondeterminism error. This means that the workflow code as written is not compatible with the history that was fed in. Details: Workflow activation completion failed: Failure { failure: Some(Failure { message: "[TMPRL1100] Nondeterminism error: Timer machine does not handle this event: HistoryEvent(id: 5, ActivityTaskScheduled)", source: "", stack_trace: "at x\\n  at y", encoded_attributes: None }) }',
    );
    err.name = 'DeterminismViolationError';
    expect(replayFailure(err)).toBe(
      'nondeterminism: [TMPRL1100] Nondeterminism error: Timer machine does not handle this event: HistoryEvent(id: 5, ActivityTaskScheduled)',
    );
  });
});

describe('watch cursor', () => {
  // Just the parts of a view the cursor reads; retention drops old records and counts them.
  const view = (turns: number[], dropped: number, messages: unknown[] = []): ClientRunView =>
    ({
      decisions: turns.map((turn) => ({ turn, proposal: `p${turn}` })),
      executions: [],
      messages,
      approvals: [],
      awaiting: null,
      terminal: null,
      evidence: { total: 0, items: [] },
      dropped: { decisions: dropped, executions: 0, evidence: 0 },
    }) as unknown as ClientRunView;

  it('shows each receipt and feedback once, across retention dropping old ones', () => {
    const cursor = new WatchCursor();
    const nudge = { kind: 'control', turn: 2, code: 'loop_nudge', message: 'again?' };
    expect(cursor.take(view([1, 2], 0, [nudge])).map((i) => i.type)).toEqual(['decision', 'decision', 'control']);
    expect(cursor.take(view([2, 3], 1, [nudge]))).toEqual([expect.objectContaining({ type: 'decision', turn: 3 })]);
    // Two receipts arrived, the older one already dropped: it is reported as skipped, not lost silently.
    expect(cursor.take(view([5], 4, [nudge, { ...nudge, turn: 5 }]))).toEqual([
      { type: 'skipped', receipts: 1 },
      expect.objectContaining({ type: 'decision', turn: 5 }),
      expect.objectContaining({ type: 'control', turn: 5 }),
    ]);
    expect(cursor.take(view([5], 4, [{ ...nudge, turn: 5 }]))).toEqual([]);
  });
});
