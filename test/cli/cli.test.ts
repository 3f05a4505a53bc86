// The operator CLI as operators run it: a real subprocess against the shared dev server, with
// an in-process agent worker on a private task queue that trusts the test approver directory.
// Decisions are signed with the test keys, written to key files as an operator would have
// them. No mocks. The scenarios run concurrently; each owns its own case.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { replayFailure } from '../../client/commands/replay.js';
import { WatchCursor } from '../../client/commands/watch.js';
import { RunExport } from '../../client/export-schema.js';
import { readKeyFile, signNote, writeKeyFile, type KeyFile } from '../../client/sign.js';
import { settingsDiff } from '../../client/start-run.js';
import { waitUntil } from '../../client/wait.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import type { agentWorkflow } from '../../workflows/agent.js';
import { stateQuery, type RunView } from '../../workflows/messages.js';
import { Approver } from '../../workflows/trust/directory.js';
import { verifyStatement } from '../../workflows/trust/statement.js';
import { uniqueCase, useAgentHarness } from '../helpers/agent.js';
import { keys, TEST_DIRECTORY } from '../helpers/keys.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

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
  /** A real key the worker's directory does not list. */
  mallory: keyFile('mallory', keys.mallory),
  /** Claims to be alice, signs with mallory's key. */
  forged: keyFile('forged', { ...keys.mallory, id: keys.alice.id }),
};
/** Alice's key file with one character of its secret changed. */
const tamperedKeyFile = join(dir, 'tampered.json');
writeFileSync(tamperedKeyFile, JSON.stringify({ ...keys.alice, secretKey: flipHex(keys.alice.secretKey, 10) }), { mode: 0o600 });
const directoryFile = join(dir, 'directory.json');
writeFileSync(directoryFile, JSON.stringify(TEST_DIRECTORY));

/** The same hex string with the character at `at` replaced by a different hex digit. */
function flipHex(hex: string, at: number): string {
  const c = hex[at] === '0' ? '1' : '0';
  return `${hex.slice(0, at)}${c}${hex.slice(at + 1)}`;
}

ntil(async () => (await handleOf(started.runId).query(stateQuery)).awaiting, 'the approval request', { timeoutMs: 20_000, everyMs: 100 });
    expect(awaiting.tool).toBe('reissue_transfer');
    return { transferId, runId: started.runId, awaiting };
  }

  it('start is idempotent; watch follows the run to its end; export matches RunExport; replay passes', async () => {
    const transferId = uniqueCase('PX');
    await seed(transferId, 'SETTLED');
    const first = json<{ runId: string; executionRunId: string; attached: boolean; running: boolean }>(
      await cli('start', 'payments', transferId, '--turns', '6', '--json'),
    );
    expect(first).toMatchObject({ runId: `payments-${transferId}`, attached: false, running: true, taskQueue: h.taskQueue });
    const second = await cli('start', 'payments', transferId);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(new RegExp(`^attached to existing run payments-${transferId} `));
    const secondId = (await handleOf(first.runId).describe()).runId;
    expect(secondId).toBe(first.executionRunId);

    // The run is quick; both watches may start after it ended and must still show every item once.
    const [watched, watchedJson] = await Promise.all([cli('watch', first.runId), cli('watch', first.runId, '--json')]);
    expect(watched.code, watched.stderr).toBe(0);
    const lines = watched.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\[turn 1\] proposal .*read_replica.* -> accepted/);
    expect(lines.some((l) => /^\[turn 2\] read\s+read_ledger -> final/.test(l))).toBe(true);
    expect(lines.some((l) => /^\[turn \d+\] probe\s+probe -> final/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/^terminal: resolved \(probe_confirmed\)/);
    expect(new Set(lines).size).toBe(lines.length); // each item once

    // --json: one object per line, the same items in the same order, the terminal last.
    const items = watchedJson.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(items).toHaveLength(lines.length);
    expect(items.at(-1)).toMatchObject({ type: 'terminal', class: 'resolved', reason: 'probe_confirmed' });
    const view = await handleOf(first.runId).query(stateQuery);
    expect(items.filter((i) => i.type === 'decision')).toHaveLength(view.state.decisions.length);
    expect(items.filter((i) => i.type === 'execution')).toHaveLength(view.state.executions.length);

    const [exported, status, replayed, again] = await Promise.all([
      cli('export', first.runId),
      cli('status', first.runId, '--json'),
      // The bundle global setup built from workflows/: the code the worker runs.
      cli('replay', first.runId, '--bundle', inject('workflowBundlePath')),
      cli('start', 'payments', transferId, '--json'),
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const record = RunExport.parse(JSON.parse(exported.stdout));
    expect(record).toMatchObject({ runId: first.runId, domain: 'payments', caseId: transferId, terminal: { class: 'resolved' }, effects: [], approvals: [] });
    expect(record.decisions.length).toBeGreaterThan(0);
    expect(record.executions.map((e) => e.tool)).toContain('read_ledger');
    expect(record.evidence.some((e) => e.tool === 'read_ledger' && e.facts['ledger.status'] === 'SETTLED')).toBe(true);
    expect(json(status)).toMatchObject({ phase: 'terminal', awaiting: null, terminal: { class: 'resolved', reason: 'probe_confirmed' } });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toMatch(/^replay ok: /);
    // A closed case is reported, not run again.
    expect(json(again)).toMatchObject({ runId: first.runId, attached: true, running: false, executionRunId: first.executionRunId });
  });

  it('approval: list shows the waiting run; no authority, wrong request and a second decision are refused; alice approves once', async () => {
    const { transferId, runId, awaiting } = await startAwaitingApproval('PX');
    expect(awaiting.roles).toEqual(['payments-approver']);
    // Follows the run live from here to its end.
    const watching = cli('watch', runId, '--json');

    const [again, status, human, listed, bob, wrong, noted] = await Promise.all([
      cli('start', 'payments', transferId, '--json'),
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
        { timeoutMs: 15_000, everyMs: 200 },
      ).then(async () => json<Array<{ runId: string }>>(await cli('list', '--awaiting-approval', '--domain', 'payments', '--json')).find((r) => r.runId === runId)),
      cli('approve', runId, awaiting.requestId, '--as', 'bob@support'),
      cli('approve', runId, `${awaiting.requestId}-nope`, '--as', 'alice@ops'),
      cli('note', runId, 'customer', 'called', 'again', '--as', 'alice@ops'),
    ]);
    // The case's run is open: a second start attaches to it.
    expect(json(again)).toMatchObject({ runId, attached: true, running: true, executionRunId: (await handleOf(runId).describe()).runId });
    expect(json(status)).toMatchObject({
      phase: 'awaiting_approval',
      awaiting: { requestId: awaiting.requestId, tool: 'reissue_transfer', args: { transferId }, roles: ['payments-approver'] },
    });
    expect(human.stdout).toMatch(/awaiting\s+approval of reissue_transfer/);
    expect(human.stdout).toContain(awaiting.requestId);
    expect(listed).toMatchObject({ domain: 'payments', caseId: transferId, phase: 'awaiting_approval', terminal: null });
    expectOneLineError(bob, 1, /bob@support may not approve reissue_transfer \(needs payments-approver\)/);
    expectOneLineError(wrong, 1, /is not pending/);
    expect(noted.code, noted.stderr).toBe(0);
    expect((await h.world.calls({ key: transferId })).some((c) => c.op === 'payments.reissue')).toBe(false);
    expect((await handleOf(runId).query(stateQuery)).state.phase).toBe('awaiting_approval');

    const approved = json<{ decision: string; requestId: string; outcome: string }>(
      await cli('approve', runId, awaiting.requestId, '--as', 'alice@ops', '--comment', 'ledger says FAILED', '--json'),
    );
    expect(approved).toMatchObject({ decision: 'approved', requestId: awaiting.requestId });
    const result = await handleOf(runId).result();
    expect(result.terminal.class).toBe('resolved');
    expect(await h.world.effects({ key: transferId })).toHaveLength(1);

    const [twice, exported, watched] = await Promise.all([cli('approve', runId, awaiting.requestId, '--as', 'alice@ops'), cli('export', runId), watching]);
    expectOneLineError(twice, 1, /already ended|not pending/);
    expect(await h.world.effects({ key: transferId })).toHaveLength(1);

    const record = RunExport.parse(JSON.parse(exported.stdout));
    expect(record.approvals).toMatchObject([{ requestId: awaiting.requestId, decision: 'approved', by: 'alice@ops', comment: 'ledger says FAILED' }]);
    expect(record.effects).toMatchObject([{ tool: 'reissue_transfer', status: 'applied' }]);
    expect(record.transcript).toContainEqual(expect.objectContaining({ kind: 'note', by: 'alice@ops', text: 'customer called again' }));

    // The live watch saw the request, the decision, the effect and the end, each once, in order.
    expect(watched.code, watched.stderr).toBe(0);
    const items = watched.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; tool?: string; decision?: string; class?: string });
    const at = (pred: (i: (typeof items)[number]) => boolean) => items.findIndex(pred);
    const request = at((i) => i.type === 'approval_request');
    const decision = at((i) => i.type === 'approval' && i.decision === 'approved');
    const effect = at((i) => i.type === 'execution' && i.tool === 'reissue_transfer');
    expect(request).toBeGreaterThanOrEqual(0);
    expect(decision).toBeGreaterThan(request);
    expect(effect).toBeGreaterThan(decision);
    expect(items.filter((i) => i.type === 'approval_request')).toHaveLength(1);
    expect(items.filter((i) => i.type === 'note')).toHaveLength(1);
    expect(items.at(-1)).toMatchObject({ type: 'terminal', class: 'resolved' });
    expect(items.filter((i) => i.type === 'terminal')).toHaveLength(1);
  });

  it('deny: the model hears the denial, escalates, and nothing moves', async () => {
    const { transferId, runId, awaiting } = await startAwaitingApproval('PX');
    const denied = await cli('deny', runId, awaiting.requestId, '--as', 'alice@ops', '--comment', 'beneficiary bank is down');
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toMatch(/^denied reissue_transfer /);
    const result = await handleOf(runId).result();
    // The rules model read the denial and escalated instead of trying again.
    expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'model_escalation' });
    expect(result.terminal.detail).toContain('beneficiary bank is down');
    expect(result.effects).toEqual([]);
    const view = await handleOf(runId).query(stateQuery);
    expect(view.state.transcript).toContainEqual(expect.objectContaining({ kind: 'control', code: 'approval_denied' }));
    expect(view.state.approvals).toMatchObject([{ decision: 'denied', by: 'alice@ops' }]);
    expect(await h.world.effects({ key: transferId })).toEqual([]);
    expect((await h.world.calls({ key: transferId })).some((c) => c.op === 'payments.reissue')).toBe(false);
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

  it('usage errors and unknown runs: one line on stderr, no stack trace', async () => {
    const [badFlag, unknownCommand, missingArg, noIdentity, badNumber, quoted, unknownRun, unknownApprove, unknownReplay, badDomain, help] = await Promise.all([
      cli('status', 'payments-x', '--bogus'),
      cli('frobnicate'),
      cli('start', 'payments'),
      cli('approve', 'payments-x', 'req-1'),
      cli('start', 'payments', 'PX-1', '--turns', 'many'),
      cli('list', '--domain', "payments' OR 1=1"),
      cli('status', 'payments-no-such-run'),
      cli('approve', 'payments-no-such-run', 'r1', '--as', 'alice@ops'),
      cli('replay', 'payments-no-such-run'),
      cli('start', 'no-such-domain', 'PX-1'),
      cli('--help'),
    ]);
    expectOneLineError(badFlag, 2, /Unknown option '--bogus'/);
    expectOneLineError(unknownCommand, 2, /unknown command 'frobnicate'/);
    expectOneLineError(missingArg, 2, /missing <case>/);
    expectOneLineError(noIdentity, 2, /--as/);
    expectOneLineError(badNumber, 2, /--turns must be a whole number/);
    expectOneLineError(quoted, 2, /may not contain quotes/);
    expectOneLineError(unknownRun, 1, /^error: run payments-no-such-run not found$/);
    expectOneLineError(unknownApprove, 1, /run payments-no-such-run not found/);
    expectOneLineError(unknownReplay, 1, /run payments-no-such-run not found/);
    expectOneLineError(badDomain, 2, /unknown domain no-such-domain/);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: agent <command>/);
  });
});

describe('replay failure message', () => {
  it("keeps core's reason and drops its debug dump and stack trace", () => {
    const err = new Error(
      'Replay failed with a nondeterminism error. This means that the workflow code as written is not compatible with the history that was fed in. Details: Workflow activation completion failed: Failure { failure: Some(Failure { message: "[TMPRL1100] Nondeterminism error: Timer machine does not handle this event: HistoryEvent(id: 5, ActivityTaskScheduled)", source: "", stack_trace: "at x\\n  at y", encoded_attributes: None }) }',
    );
    err.name = 'DeterminismViolationError';
    expect(replayFailure(err)).toBe('nondeterminism: [TMPRL1100] Nondeterminism error: Timer machine does not handle this event: HistoryEvent(id: 5, ActivityTaskScheduled)');
  });
});

describe('watch cursor', () => {
  // Just the parts of a view the cursor reads; retention drops old records and counts them.
  const view = (turns: number[], dropped: number, transcript: unknown[] = []): RunView =>
    ({
      state: {
        decisions: turns.map((turn) => ({ turn, proposal: `p${turn}` })),
        executions: [],
        transcript,
        approvals: [],
        dropped: { decisions: dropped, executions: 0, evidence: 0, transcript: 0, effects: 0 },
      },
    }) as unknown as RunView;

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
